"""Our NDRPDR and MRR suites hold CSIT's tests: names and tags, compared with CSIT's suite files.

Needs CSIT's git directory (``tests/csit_schema_source.py``: ``NDRPDR_CSIT_GIT``
or the mirror; skipped without one, failed under
``NDRPDR_REQUIRE_CSIT_SCHEMA=1``). For every family, each of our NDRPDR and
MRR suites must hold the tests of one of CSIT's suite files of the same id
(any NIC's), in order, with the same ``[Tags]``; CSIT's MRR suite is its
NDRPDR one with ``-mrr`` for ``-ndrpdr`` (its generator's rule). The family's
tags must be the suite tags of one of them, as Robot compares tags (case
ignored), less the testbed's (topology, NIC, driver, queue sizes). Every
difference is listed. Our own families (``own``) have no CSIT suite.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

import csit_schema_source
from csit_schema_source import csit_git_or_skip
from csit_suites import CsitSuite, read_csit_suites
from ndrpdr.families import Family
from ndrpdr.families.registry import builtin_families, kind_of
from ndrpdr.families.table import TestType, suite, suite_types

#: CSIT's suite tags that say where a suite runs, not what it tests.
_TESTBED_TAG = re.compile(r"\d_NODE_\w+_TOPO|PERFTEST|HW_ENV|NIC_.*|DRV_.*|[RT]XQ_SIZE_\d+")


@cache
def _csit() -> dict[str, list[CsitSuite]]:
    return read_csit_suites(csit_git_or_skip(), {f.id for f in builtin_families()})


def _compared() -> list[Family]:
    return [f for f in builtin_families() if kind_of(f.id) != "own"]


def _misnamed(family_id: str) -> str | None:
    """The id CSIT's tests of suite ``family_id`` carry when not their suite's (else None).

    CSIT's UDP SFDP ``l4ip4`` suites name their tests after the ``ip4``
    suites' ids (``64B-1c-ethip4udp-sfdp-ip4-...`` in the ``...-sfdp-l4ip4-...``
    suite); ours carry their own id, as every other suite's tests do.
    """
    if family_id.startswith("ethip4udp-sfdp-l4ip4-"):
        return family_id.replace("-sfdp-l4ip4-", "-sfdp-ip4-")
    return None


def _tests_of(
    csit: CsitSuite, test_type: TestType, family_id: str = ""
) -> list[tuple[str, tuple[str, ...]]]:
    """CSIT's tests of ``csit`` as ``test_type``, named with ``family_id`` where CSIT's names
    carry another id (``_misnamed``)."""
    tests = [(re.sub(r"-ndrpdr$", f"-{test_type}", name), tags) for name, tags in csit.tests]
    theirs = _misnamed(family_id)
    if theirs is None:
        return tests
    return [(name.replace(f"-{theirs}-", f"-{family_id}-"), tags) for name, tags in tests]


def _differences(
    ours: list[tuple[str, tuple[str, ...]]], theirs: list[tuple[str, tuple[str, ...]]]
) -> str:
    mine, csit = dict(ours), dict(theirs)
    lines = [f"  only ours: {name} {list(mine[name])}" for name in mine if name not in csit]
    lines += [f"  only CSIT's: {name} {list(csit[name])}" for name in csit if name not in mine]
    lines += [f"  tags of {name}: ours {list(mine[name])}, CSIT's {list(csit[name])}"
              for name in mine if name in csit and mine[name] != csit[name]]  # fmt: skip
    return "\n".join(lines or ["  same tests, another order"])


def test_every_family_but_our_own_has_a_csit_suite() -> None:
    csit = _csit()
    assert [f.id for f in _compared() if f.id not in csit] == []


@pytest.mark.parametrize("test_type", ["ndrpdr", "mrr"])
def test_suites_hold_csits_tests_and_tags(test_type: TestType) -> None:
    csit = _csit()
    found = []
    for family in _compared():
        if test_type not in suite_types(family) or family.id not in csit:
            continue
        ours = [(row.name, row.tags) for row in suite(family, test_type).rows]
        variants = csit[family.id]
        if any(ours == _tests_of(v, test_type, family.id) for v in variants):
            continue
        for v in variants:
            found.append(f"{family.id} {test_type} vs {v.path}:\n"
                         + _differences(ours, _tests_of(v, test_type, family.id)))  # fmt: skip
    assert not found, "\n".join(found)


def test_csits_udp_l4ip4_sfdp_tests_carry_the_ip4_ids() -> None:
    """The one renaming ``_tests_of`` does is still CSIT's: those suites' every test carries
    the ip4 suite's id, and no other family's (drop ``_misnamed`` once CSIT renames them)."""
    csit = _csit()
    misnamed = [f.id for f in _compared() if _misnamed(f.id)]
    assert len(misnamed) == 8  # 4 scales, cps and tput
    for family_id in misnamed:
        theirs = _misnamed(family_id)
        for variant in csit[family_id]:
            assert all(f"-{theirs}-ndrpdr" in name for name, _ in variant.tests), variant.path
    assert _misnamed("ethip4tcp-sfdp-l4ip4-h1024-p63-s64512-cps") is None


def test_suite_tags_are_csits() -> None:
    csit = _csit()
    found = []
    for family in _compared():
        ours = {t.lower() for t in suite(family, "ndrpdr").tags}
        tagsets = [
            (v.path, {t.lower() for t in v.tags if not _TESTBED_TAG.fullmatch(t)})
            for v in csit.get(family.id, [])
        ]
        if any(ours == theirs for _, theirs in tagsets):
            continue
        found += [f"{family.id} vs {path}: only ours {sorted(ours - theirs)},"
                  f" only CSIT's {sorted(theirs - ours)}" for path, theirs in tagsets]  # fmt: skip
    assert not found, "\n".join(found)


#: A suite file in CSIT's pipe format (our own text): what the reader must find in it.
_STAND_IN = """\
*** Settings ***
| Force Tags | 2_NODE_SINGLE_LINK_TOPO | NDRPDR
| ... | ETH | IP4FWD | ethip4-mine

*** Test Cases ***
| 64B-1c-ethip4-mine-ndrpdr
| | [Tags] | 64B | 1C
| | frame_size=${64} | phy_cores=${1}

| IMIX-2c-ethip4-mine-ndrpdr
| | [Tags] | IMIX | 2C
| | frame_size=IMIX_v4_1 | phy_cores=${2}
"""


def test_the_reader_finds_every_nics_suite_of_an_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mirror-free: a stand-in git directory, two NICs' files of one id and one of another id."""
    repo = tmp_path / "csit"
    names = ("2n1l-10ge2p1x710-ethip4-mine-ndrpdr.robot", "10ge2p1x710-ethip4-mine-ndrpdr.robot",
             "2n1l-10ge2p1x710-ethip4-other-ndrpdr.robot")  # fmt: skip
    for name in names:
        path = repo / "tests/vpp/perf/ip4" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_STAND_IN)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t.invalid"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "suites"], check=True)
    found = read_csit_suites(repo, {"ethip4-mine"})
    assert list(found) == ["ethip4-mine"]
    assert sorted(s.path.rsplit("/", 1)[1] for s in found["ethip4-mine"]) == [
        "10ge2p1x710-ethip4-mine-ndrpdr.robot", "2n1l-10ge2p1x710-ethip4-mine-ndrpdr.robot",
    ]  # fmt: skip
    mine = found["ethip4-mine"][0]
    assert mine.tests == (
        ("64B-1c-ethip4-mine-ndrpdr", ("64B", "1C")),
        ("IMIX-2c-ethip4-mine-ndrpdr", ("IMIX", "2C")),
    )
    assert mine.tags == ("2_NODE_SINGLE_LINK_TOPO", "NDRPDR", "ETH", "IP4FWD", "ethip4-mine")
    assert _tests_of(mine, "mrr")[1] == ("IMIX-2c-ethip4-mine-mrr", ("IMIX", "2C"))
    # where the git directory comes from: NDRPDR_CSIT_GIT, else the mirror, else skip or fail
    for name in ("NDRPDR_CSIT_GIT", "NDRPDR_REQUIRE_CSIT_SCHEMA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(csit_schema_source, "MIRROR", tmp_path / "no-mirror")
    with pytest.raises(pytest.skip.Exception, match="set NDRPDR_CSIT_GIT"):
        csit_git_or_skip()
    monkeypatch.setenv("NDRPDR_REQUIRE_CSIT_SCHEMA", "1")
    with pytest.raises(pytest.fail.Exception, match="NDRPDR_REQUIRE_CSIT_SCHEMA=1 requires it"):
        csit_git_or_skip()
    monkeypatch.setattr(csit_schema_source, "MIRROR", repo)
    assert csit_git_or_skip() == repo
    monkeypatch.setenv("NDRPDR_CSIT_GIT", str(tmp_path))
    assert csit_git_or_skip() == tmp_path
