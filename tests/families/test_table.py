"""The suite table: CSIT's test names, tags, frame sizes and core counts per family."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ndrpdr.families import FAMILIES_ENV, Family, get_family
from ndrpdr.families.registry import BUILTIN_MODULES, builtin_families
from ndrpdr.families.table import (
    CORES,
    MIN_FRAME_IP4_B,
    MIN_FRAME_IP6_B,
    TEST_TYPES,
    min_frame_size_b,
    suite,
    suite_types,
    suites,
)
from ndrpdr.profiles import IMIX

ALL = suites(builtin_families())


def _names(family_id: str, test_type: str = "ndrpdr") -> list[str]:
    return [row.name for row in suite(get_family(family_id), test_type).rows]  # type: ignore[arg-type]


def test_csit_names_and_smallest_frames() -> None:
    assert _names("ethip4-ip4base") == [
        "64B-1c-ethip4-ip4base-ndrpdr", "64B-2c-ethip4-ip4base-ndrpdr",
        "64B-4c-ethip4-ip4base-ndrpdr",
        "1518B-1c-ethip4-ip4base-ndrpdr", "1518B-2c-ethip4-ip4base-ndrpdr",
        "9000B-1c-ethip4-ip4base-ndrpdr",
        "IMIX-1c-ethip4-ip4base-ndrpdr", "IMIX-2c-ethip4-ip4base-ndrpdr",
        "IMIX-4c-ethip4-ip4base-ndrpdr",
    ]  # fmt: skip
    assert _names("ethip6-ip6base", "mrr")[:2] == [
        "78B-1c-ethip6-ip6base-mrr", "78B-2c-ethip6-ip6base-mrr",
    ]  # fmt: skip
    assert "78B-1c-ethip6ip6-ip6base-srv6enc1sid-ndrpdr" in _names("ethip6ip6-ip6base-srv6enc1sid")
    assert "64B-2c-dot1q-l2bdbasemaclrn-ndrpdr" in _names("dot1q-l2bdbasemaclrn")


@pytest.mark.parametrize("family", builtin_families(), ids=lambda f: f.id)
def test_smallest_frame_follows_the_ip_version(family: Family) -> None:
    ipv6 = any(h.ip_version == 6 for h in family.profile.directions)
    assert min_frame_size_b(family) == (MIN_FRAME_IP6_B if ipv6 else MIN_FRAME_IP4_B)


STATELESS = [f for f in builtin_families() if f.profile.transactions is None]
STATEFUL = [f for f in builtin_families() if f.profile.transactions is not None]


@pytest.mark.parametrize("family", STATELESS, ids=lambda f: f.id)
def test_rows_of_every_family(family: Family) -> None:
    """NDRPDR and MRR, same rows; CSIT's frame/core restrictions; 1c, 2c, 4c at the key frame;
    soak: the first row's frame at 1c and 2c."""
    ndrpdr, mrr, soak = (suite(family, kind) for kind in TEST_TYPES)
    first = ndrpdr.rows[0].frame_size
    assert [(r.frame_size, r.cores) for r in soak.rows] == [(first, 1), (first, 2)]
    assert soak.rows[0].name == f"{soak.rows[0].frame_label}-1c-{family.id}-soak"
    assert [(r.frame_size, r.cores) for r in ndrpdr.rows] == [
        (r.frame_size, r.cores) for r in mrr.rows
    ]
    pairs = {(r.frame_size, r.cores) for r in ndrpdr.rows}
    assert len(pairs) == len(ndrpdr.rows)
    assert {cores for _, cores in pairs} <= set(CORES)
    assert all(cores == 1 for frame, cores in pairs if frame == 9000)  # CSIT: 9000B at 1c only
    assert all(cores <= 2 for frame, cores in pairs if frame == 1518)  # CSIT: 1518B at 1-2c
    smallest = min_frame_size_b(family)
    if "IPSEC" not in family.tags:
        assert {
            (smallest, 1),
            (smallest, 2),
            (smallest, 4),
            (1518, 1),
            (9000, 1),
            (IMIX, 1),
        } <= pairs
    elif "REASSEMBLY" in family.tags:
        assert pairs == {(1518, 1), (1518, 2)}  # the DUT-DUT MTU splits a 1518B frame in two
    else:
        assert pairs == {(1518, 1), (1518, 2), (IMIX, 1), (IMIX, 2), (IMIX, 4)}  # daily IPsec


@pytest.mark.parametrize("family", STATEFUL, ids=lambda f: f.id)
def test_stateful_families_have_csits_ndrpdr_rows_only(family: Family) -> None:
    """CSIT's ASTF suites: NDRPDR only; cps at 64B, tput at 100B, 1518B, 9000B; 1, 2, 4 cores."""
    assert suite_types(family) == ("ndrpdr",)
    rows = suite(family, "ndrpdr").rows
    assert family.profile.transactions is not None
    frames = (64,) if family.profile.transactions.kind == "cps" else (100, 1518, 9000)
    assert [(r.frame_size, r.cores) for r in rows] == [(f, c) for f in frames for c in CORES]
    assert rows[0].name == f"{rows[0].frame_label}-1c-{family.id}-ndrpdr"


def test_tags_of_a_row_and_a_suite() -> None:
    ip6 = suite(get_family("ethip6-ip6scale2m-rnd"), "mrr")
    assert ip6.rows[1].tags == ("78B", "2C")
    assert ip6.tags == (
        "MRR",
        "ETH",
        "IP6FWD",
        "IP6_RND",
        "SCALE",
        "FIB_2M",
        "ethip6-ip6scale2m-rnd",
    )
    assert suite(get_family("eth-l2xcbase"), "ndrpdr").rows[-1].tags == ("IMIX", "4C")


def test_names_and_paths_are_unique() -> None:
    names = Counter(row.name for s in ALL for row in s.rows)
    assert [name for name, count in names.items() if count > 1] == []
    paths = [s.path for s in ALL]
    assert len(paths) == len(set(paths)) == sum(len(suite_types(f)) for f in builtin_families())
    assert {s.folder for s in ALL} <= set(BUILTIN_MODULES) - {"own"}
    assert suite(get_family("ethip4udp-ip4base"), "mrr").path == "ip4/ethip4udp-ip4base-mrr.robot"
    assert suite(get_family("ethip6-ip6base"), "ndrpdr").path == "ip6/ethip6-ip6base-ndrpdr.robot"


def test_a_lab_family_goes_to_the_lab_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "lab.py").write_text(
        "import dataclasses\n"
        "from ndrpdr.families.defs.ip4 import FAMILIES as IP4\n"
        "base = IP4[0]\n"
        "profile = dataclasses.replace(base.profile, name='ethip4-ip4mylab')\n"
        "setup = dataclasses.replace(base.setup, family='ethip4-ip4mylab')\n"
        "lab = dataclasses.replace(base, id='ethip4-ip4mylab', profile=profile, setup=setup)\n"
        "FAMILIES = [lab]\n"
    )
    monkeypatch.setenv(FAMILIES_ENV, str(tmp_path))
    lab = suite(get_family("ethip4-ip4mylab"), "ndrpdr")
    assert lab.path == "lab/ethip4-ip4mylab-ndrpdr.robot"
    assert lab.rows[0].name == "64B-1c-ethip4-ip4mylab-ndrpdr"
