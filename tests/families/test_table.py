"""The suite table: CSIT's test names, tags, frame sizes and core counts per family."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ndrpdr.families import FAMILIES_ENV, Family, get_family
from ndrpdr.families.registry import builtin_families, builtin_kinds
from ndrpdr.families.table import (
    CORES,
    CORES_ONE_DATA_PLANE,
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
    """CSIT's 12 tests of ethip4-ip4base: 64B, 1518B, 9000B and IMIX, each at 1, 2 and 4 cores."""
    assert _names("ethip4-ip4base") == [
        f"{frame}-{cores}c-ethip4-ip4base-ndrpdr"
        for frame in ("64B", "1518B", "9000B", "IMIX")
        for cores in (1, 2, 4)
    ]
    assert _names("ethip6-ip6base", "mrr")[:2] == [
        "78B-1c-ethip6-ip6base-mrr", "78B-2c-ethip6-ip6base-mrr",
    ]  # fmt: skip
    assert "78B-1c-ethip6ip6-ip6base-srv6enc1sid-ndrpdr" in _names("ethip6ip6-ip6base-srv6enc1sid")
    assert "64B-2c-dot1q-l2bdbasemaclrn-ndrpdr" in _names("dot1q-l2bdbasemaclrn")


def test_ipsec_suites_hold_the_smallest_frame_too() -> None:
    """CSIT's IPsec suites hold 64B rows (its daily jobs choose 1518B and IMIX by tag)."""
    names = _names("ethip4ipsec4tnlsw-ip4base-int-aes256gcm")
    assert names[:3] == [f"64B-{c}c-ethip4ipsec4tnlsw-ip4base-int-aes256gcm-ndrpdr" for c in CORES]
    assert len(names) == 12
    assert len(_names("ethip4ipsec1000tnlsw-ip4base-int-aes256gcm-reassembly", "mrr")) == 12


@pytest.mark.parametrize("family", builtin_families(), ids=lambda f: f.id)
def test_smallest_frame_follows_the_ip_version(family: Family) -> None:
    ipv6 = any(h.ip_version == 6 for h in family.profile.directions)
    assert min_frame_size_b(family) == (MIN_FRAME_IP6_B if ipv6 else MIN_FRAME_IP4_B)


STATELESS = [f for f in builtin_families() if f.profile.transactions is None]
STATEFUL = [f for f in builtin_families() if f.profile.transactions is not None]


@pytest.mark.parametrize("family", STATELESS, ids=lambda f: f.id)
def test_rows_of_every_family(family: Family) -> None:
    """NDRPDR and MRR, the same rows: every frame at every core count (2-4 with one data-plane
    core); soak: the 1-core rows (a reassembly family's 1518B only), none without one."""
    ndrpdr, mrr, soak = (suite(family, kind) for kind in TEST_TYPES)
    pairs = [(r.frame_size, r.cores) for r in ndrpdr.rows]
    assert pairs == [(r.frame_size, r.cores) for r in mrr.rows]
    cores = CORES_ONE_DATA_PLANE if "SCHEDULER" in family.tags else CORES
    frames = (min_frame_size_b(family), 1518, 9000, IMIX)
    assert pairs == [(frame, c) for frame in frames for c in cores]
    soak_pairs = [(r.frame_size, r.cores) for r in soak.rows]
    if "SCHEDULER" in family.tags:
        assert soak_pairs == [] and suite_types(family) == ("ndrpdr", "mrr")
    elif "REASSEMBLY" in family.tags:  # the frame its reassembly splits in two
        assert soak_pairs == [(1518, 1)]
    else:
        assert soak_pairs == [(frame, 1) for frame in frames]
        assert soak.rows[0].name == f"{soak.rows[0].frame_label}-1c-{family.id}-soak"
    if "SCHEDULER" not in family.tags:
        assert suite_types(family) == TEST_TYPES


def test_one_data_plane_core_families_start_at_two_cores() -> None:
    """The async crypto scheduler's families: one core forwards, the others encrypt."""
    family = "ethip4ipsec8tnlswasync-scheduler-ip4base-int-aes256gcm"
    assert _names(family)[:3] == [f"64B-{c}c-{family}-ndrpdr" for c in (2, 3, 4)]
    assert suite(get_family(family), "ndrpdr").rows[1].tags == ("64B", "3C")


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
    assert {s.folder for s in ALL} <= set(builtin_kinds()) - {"own"}
    assert suite(get_family("ethip4udp-ip4base"), "mrr").path == "ip4/ethip4udp-ip4base-mrr.robot"
    assert suite(get_family("ethip6-ip6base"), "ndrpdr").path == "ip6/ethip6-ip6base-ndrpdr.robot"


def test_a_lab_family_goes_to_the_lab_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "lab.py").write_text(
        "import dataclasses\n"
        "from ndrpdr.families.kinds.ip4.defs import FAMILIES as IP4\n"
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
