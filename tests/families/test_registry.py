"""The family registry: every built-in family valid and unique, a lab's families loaded or named."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from ndrpdr.families import FAMILIES_ENV, Family, FamilyError, all_families, get_family, kinds
from ndrpdr.families.registry import LAB_KIND, builtin_families, builtin_kinds, kind_of

#: A lab's family file: ethip4-ip4base's traffic under a lab's own id.
_LAB_FILE = """
from ndrpdr.families import Family
from ndrpdr.families.build import cost, setup, src_range_traffic
from ndrpdr.profiles import Profile

FAMILIES = [
    Family(
        id="{id}",
        tags=("ETH", "IP4FWD", "LAB"),
        profile=Profile(
            name="{id}",
            description="the lab's IPv4 routing",
            layer="L3",
            directions=src_range_traffic(4, 2, 10),
            cost=cost(150.0, "a lab's guess"),
        ),
        setup=setup(),
    )
]
"""


def test_builtin_ids_are_unique_and_csit_like() -> None:
    ids = [family.id for family in builtin_families()]
    assert len(ids) == len(set(ids)) >= 52
    # words joined by '-', or '--' as CSIT's "ethip4--ethip4udpgeneve-1tun-ip4base"
    assert all(re.fullmatch(r"[a-z0-9]+(--?[a-z0-9]+)*", i) for i in ids)
    assert [family.id for family in all_families()] == ids  # no lab directory set


@pytest.mark.parametrize("family", builtin_families(), ids=lambda f: f.id)
def test_every_builtin_family_is_whole(family: Family) -> None:
    assert family.profile.name == family.setup.family == family.id
    assert family.description and family.tags
    assert set(family.duts) <= {1, 2} and family.duts == tuple(sorted(set(family.duts)))
    assert family.setup.runs_on("sim"), f"{family.id}: the simulator must run every family"
    assert kind_of(family.id) in builtin_kinds()
    assert get_family(family.id.upper()) is family


@pytest.mark.parametrize("family", builtin_families(), ids=lambda f: f.id)
def test_tags_follow_the_id_as_csit_does(family: Family) -> None:
    """Tags that CSIT derives from a part of the id are there exactly when that part is."""
    tags = set(family.tags)
    assert family.id not in tags  # the suite adds the id; the family lists only CSIT's tags
    assert ("IP4_RND" in tags or "IP6_RND" in tags) == family.id.endswith("-rnd")
    tunnels = re.search(r"ipsec(\d+)tnl(sw|hw)", family.id)
    assert ("IPSEC" in tags) == (tunnels is not None)
    if tunnels is not None:
        assert f"TNL_{tunnels.group(1)}" in tags
        assert f"IPSEC{tunnels.group(2).upper()}" in tags  # IPSECSW or IPSECHW
        # CSIT's 2n1l -udir hwasync suites do not tag ASYNC; its 2n1l scheduler ones do
        hw_udir = "hwasync" in family.id and family.id.endswith("-udir")
        assert ("ASYNC" in tags) == ("async" in family.id and not hw_udir)
        assert ("IPSECINT" in tags) == ("-int-" in family.id)
        assert ("IPSECTUN" in tags) == ("-policy-" in family.id)
        # CSIT's IPsec suites are 3-node but its 2-node unidirectional ones (2n1l -udir)
        assert family.duts == ((1,) if family.id.endswith("-udir") else (2,))
        assert family.profile.unidirectional == ("UDIR" in tags)
    assert ("IP6FWD" in tags) == any(h.ip_version == 6 for h in family.profile.directions)


def test_unknown_id_names_the_known_ones() -> None:
    with pytest.raises(FamilyError) as error:
        get_family("ethip6-ip6bose")
    message = str(error.value)
    assert "'ethip6-ip6bose' is not known" in message
    assert "ethip6-ip6base" in message and "eth-l2xcbase" in message
    assert FAMILIES_ENV in message


def test_lab_family_from_a_families_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mine.py").write_text(_LAB_FILE.format(id="ethip4-ip4lab"))
    (tmp_path / "_helper.py").write_text("raise RuntimeError('not a family file')\n")
    monkeypatch.setenv(FAMILIES_ENV, str(tmp_path))
    family = get_family("ethip4-ip4lab")
    assert family.tags == ("ETH", "IP4FWD", "LAB")
    assert kind_of(family.id) == LAB_KIND
    assert [f.id for f in all_families()][-1] == "ethip4-ip4lab"
    assert family not in builtin_families()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("raise RuntimeError('no licence')\n", "loading its families failed: no licence"),
        ("FAMILIES = ['ethip4-ip4base']\n", "FAMILIES must be a list of ndrpdr.families.Family"),
        ("X = 1\n", "FAMILIES must be a list"),
        (_LAB_FILE.format(id="ethip4-ip4base"), "family ethip4-ip4base is already defined"),
        (_LAB_FILE.format(id="Bad_Id"), "family 'Bad_Id': not an id like"),
    ],
)
def test_a_bad_lab_file_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: str
) -> None:
    bad = tmp_path / "broken.py"
    bad.write_text(text)
    monkeypatch.setenv(FAMILIES_ENV, str(tmp_path))
    with pytest.raises(FamilyError) as error:
        all_families()
    assert str(bad) in str(error.value)
    assert expected in str(error.value)


def test_a_families_path_that_is_no_directory_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FAMILIES_ENV, f"{tmp_path}:{tmp_path / 'missing'}")
    with pytest.raises(FamilyError, match=re.escape(f"{tmp_path / 'missing'} is not a directory")):
        all_families()


#: The kinds in the order their families are listed (the suite table, ``ndrpdr families``).
KINDS = ("own", "ip4", "ip6", "l2", "acl", "memif", "vhost", "srv6", "ipsec", "vxlan", "wireguard",
         "features", "gtpu", "lacp", "srv6proxy", "geneve", "nat", "astf", "sfdp")  # fmt: skip


def test_kinds_are_found_in_their_order() -> None:
    found = builtin_kinds()
    assert tuple(found) == KINDS
    orders = [module.ORDER for module in found.values()]
    assert orders == sorted(set(orders)), "each kind's ORDER is its own"
    assert [kind_of(f.id) for f in builtin_families()] == sorted(
        (kind_of(f.id) for f in builtin_families()), key=KINDS.index
    )


def test_a_new_kind_package_is_found_without_a_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "zzkind"
    package.mkdir()
    (package / "__init__.py").write_text('"""A kind of a test."""\n')
    (package / "defs.py").write_text(
        _LAB_FILE.format(id="ethip4-zzkind") + "\nORDER = 15\n"  # between own and ip4
    )
    monkeypatch.setattr(kinds, "__path__", [*kinds.__path__, str(tmp_path)])
    builtin_kinds.cache_clear()
    try:
        assert tuple(builtin_kinds()) == (KINDS[0], "zzkind", *KINDS[1:])
        (package / "defs.py").write_text(_LAB_FILE.format(id="ethip4-zzkind"))
        builtin_kinds.cache_clear()
        del sys.modules["ndrpdr.families.kinds.zzkind.defs"]
        with pytest.raises(FamilyError, match=r"kinds\.zzkind\.defs: ORDER must be an int"):
            builtin_kinds()
    finally:
        monkeypatch.undo()
        builtin_kinds.cache_clear()
        for name in [n for n in sys.modules if n.startswith("ndrpdr.families.kinds.zzkind")]:
            del sys.modules[name]
