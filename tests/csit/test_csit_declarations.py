"""Each family's declared CSIT profile, the docs' table, and the comparison's rules (unit tests).

- every family names the profile its CSIT suite names (``${traffic_profile}``,
  read from CSIT's git directory: skipped without one, failing under
  NDRPDR_REQUIRE_CSIT_SCHEMA=1);
- the table in docs/csit.rst is what ``csit_table.render`` makes of the
  declarations and the last measured run (``tests/csit/measured.json``),
  and that run covers every family direction compared;
- ``csit_compare`` finds a field's first differing frame, moves renumbered
  addresses, checks IPv4 header checksums for validity, and judges drawn
  fields by range and spread.
"""

from __future__ import annotations

import dataclasses

import csit_table
import pytest
from csit_compare import compare, header_fields
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from csit_schema_source import csit_git_or_skip
from csit_suites import csit_profiles, profile_names, suite_profile
from ndrpdr.families import all_families
from ndrpdr.families.build import CSIT_RENUMBERED
from ndrpdr.families.model import CsitDifference, FamilyDefinitionError


def test_every_family_names_its_csit_suites_traffic_profile() -> None:
    git_dir = csit_git_or_skip()
    known = profile_names(git_dir)
    wrong = []
    for family in all_families():
        theirs = csit_profiles(git_dir, family.id)
        if family.csit_profile is None:
            if family.csit and theirs:
                wrong.append(f"{family.id}: no csit_profile, CSIT's suites name {sorted(theirs)}")
        elif family.csit_profile not in theirs:
            wrong.append(
                f"{family.id}: csit_profile {family.csit_profile}, CSIT's {sorted(theirs)}"
            )
        elif family.csit_profile.startswith("trex-stl") and family.csit_profile not in known:
            wrong.append(f"{family.id}: {family.csit_profile} is no file of CSIT's profiles")
    assert not wrong, "\n".join(wrong)


def test_a_suites_profile_resolves_its_variables() -> None:
    text = "| ${n_tunnels}= | ${4}\n| ${traffic_profile}= | trex-stl-ethip4-ip4dst${n_tunnels}\n"
    assert suite_profile(text, "x.robot") == "trex-stl-ethip4-ip4dst4"
    with pytest.raises(ValueError, match=r"x\.robot: .*unresolved"):
        suite_profile("| ${traffic_profile}= | a-${n}\n", "x.robot")


def test_a_family_of_our_own_names_no_csit_profile() -> None:
    family = next(f for f in all_families() if f.csit_profile)
    with pytest.raises(FamilyDefinitionError, match=r"csit_profile .* of our own"):
        dataclasses.replace(family, csit=False)


def test_the_docs_table_is_the_declarations_and_the_last_run() -> None:
    measured = csit_table.load_measured()
    families = all_families()
    changed = csit_table.stale(families, measured)
    how = (
        "tests/csit/measured.json is stale (rerun tests/csit/test_csit_traffic_real.py with "
        "NDRPDR_CSITEQ_RESULTS=<file>, then tests/csit/csit_table.py <file>):\n"
    )
    assert not changed, how + "\n".join(changed)
    page = csit_table.page_table(csit_table.PAGE.read_text(encoding="utf-8"))
    assert page == csit_table.render(families, measured), (
        "docs/csit.rst's table is stale: run tests/csit/csit_table.py on the last results"
    )


def _frame(src: str, sport: int, ident: int = 1) -> bytes:
    return bytes(
        Ether() / IP(src=src, dst="20.20.20.2", id=ident) / UDP(sport=sport) / Raw(b"x" * 18)
    )


def test_compare_names_the_first_differing_frame_of_each_field() -> None:
    csit = [_frame("10.10.10.2", 1024 + k) for k in range(5)]
    ours = [_frame("10.10.10.2", 1024 + k if k < 3 else 2000) for k in range(5)]
    diffs = compare(csit, ours, 0)
    assert [(d.field, d.frame, d.csit, d.ours) for d in diffs] == [("udp.sport", 3, 1027, 2000)]


def test_renumbered_addresses_still_compare_host_for_host() -> None:
    rule = (CsitDifference("ip.src", "ours", renumber=("10.10.10.0/24", "198.18.0.0/24")),)
    csit = [_frame(f"10.10.10.{2 + k}", 1024) for k in range(4)]
    ours = [_frame(f"198.18.0.{2 + k}", 1024) for k in range(4)]
    assert compare(csit, ours, 0, declared=rule) == []
    shifted = [_frame(f"198.18.0.{3 + k}", 1024) for k in range(4)]
    (diff,) = compare(csit, shifted, 0, declared=rule)
    assert (diff.field, diff.frame, diff.purpose) == ("ip.src", 0, "")


def test_a_declared_difference_is_reported_with_its_reason() -> None:
    csit = [_frame("10.10.10.2", 1024, ident=1)]
    ours = [_frame("10.10.10.2", 1024, ident=0)]
    (diff,) = compare(csit, ours, 0, declared=(CsitDifference("ip.id", "why", direction=0),))
    assert diff.purpose == "why" and "differs on purpose: why" in diff.text()
    (undeclared,) = compare(csit, ours, 1, declared=(CsitDifference("ip.id", "why", direction=0),))
    assert undeclared.purpose == ""


def test_ipv4_header_checksums_are_checked_valid_not_compared() -> None:
    good = _frame("10.10.10.2", 1024)
    bad = bytearray(good)
    bad[24] ^= 0x01  # the IPv4 header checksum's second byte
    assert compare([good], [good], 0) == []
    (diff,) = compare([good], [bytes(bad)], 0)
    assert (diff.field, diff.frame, diff.csit) == ("ip.chksum", 0, "ours: wrong")


def test_drawn_fields_compare_by_range_and_spread() -> None:
    csit = [_frame("10.10.10.2", 1024 + (k * 7) % 100) for k in range(200)]
    ours = [_frame("10.10.10.2", 1024 + (k * 13) % 100) for k in range(200)]
    assert compare(csit, ours, 0, random=True) == []
    wider = [_frame("10.10.10.2", 1024 + (k * 13) % 300) for k in range(200)]
    (diff,) = compare(csit, wider, 0, random=True)
    assert diff.field == "udp.sport" and diff.frame == -1


def test_payload_and_udp_checksum_are_left_out() -> None:
    fields = header_fields(_frame("10.10.10.2", 1024))
    assert "udp.chksum" not in fields and "ip.chksum" in fields
    assert fields["frame.length"] == 60


def test_renumbering_covers_both_prefixes_of_both_ip_versions() -> None:
    assert {(d.field, d.renumber) for d in CSIT_RENUMBERED} >= {
        ("ip.src", ("10.10.10.0/24", "198.18.0.0/24")),
        ("ipv6.dst", ("2001:2::/64", "2001:2:0:1::/64")),
    }
