"""Every family with a CSIT TRex profile sends that profile's frames: both through the real TRex.

For each family that names its ``csit_profile`` (stateful ASTF families
aside) and each direction it sends, one TRex v3.08 (software mode, veths
of a namespace of this module: ``trexcapture.CaptureBed``) sends, as a
single burst of exactly N frames at a modest rate, the direction's stream
of CSIT's own profile file (extracted from CSIT's git directory at run
time, never kept in the repository) and then ours (our stream path:
``direction_traffic`` -> the client child's ``stl_stream``); an AF_PACKET
socket on the peer veth captures each, and the count captured must be N.

Checked, header by header and in order (``csit_compare``; payloads and
the UDP/TCP checksums that cover them aside):

- ours through TRex equals ``stream_frames`` (what the profile says);
- CSIT's through TRex equals ``stream_frames``, except where the family
  declares a difference (``Family.csit_differences``: reported as
  "differs on purpose: reason", renumbered addresses still compared by
  host number and order) and except where CSIT draws TRex's repeatable
  random values (compared by range and spread).

N: ``NDRPDR_CSITEQ_FRAMES``, default 1000 (CI: 60-75 s for every family on
one worker of this 2-core machine, measured 2026-12-06); the first 10,000
frames of each direction take 350 s, so they run in ``tox -e slow``
(which sets ``NDRPDR_CSITEQ_FRAMES=10000``), not in CI. Bursts go at
20 kpps and must arrive whole (the count captured is checked; a short
burst, which a busy machine's veth backlog can cause, is sent again, at
most 3 times).
``NDRPDR_CSITEQ_RESULTS`` names a JSON file to write the outcome of every
family/direction to (``csit_table.py`` keeps it in ``measured.json`` and
renders the docs' table and the report from it).
Skips without TRex or root (fails under NDRPDR_REQUIRE_TREX=1) and
without CSIT's git directory (fails under NDRPDR_REQUIRE_CSIT_SCHEMA=1).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from csit_compare import Frames, compare, header_fields
from csit_table import ours_digest
from trexcapture import PORT_MACS, TREX_DIR, CaptureBed

from csit_schema_source import csit_git_or_skip
from csit_suites import PROFILES_DIR, daily_ids
from ndrpdr.families import Family, all_families
from ndrpdr.profiles import stream_frames
from ndrpdr.trafficgen.trex.childclient import stream_payload
from ndrpdr.trafficgen.trex.streams import direction_traffic

pytestmark = pytest.mark.real  # TRex, namespaces: tests/testkinds.py

FRAMES = int(os.environ.get("NDRPDR_CSITEQ_FRAMES", "1000"))
#: The burst rate [pps]: low enough that a veth and the capture lose nothing.
PPS = 20_000.0
COMPARED = [f for f in all_families() if f.csit_profile and not f.profile.transactions]
_RESULTS: list[dict[str, Any]] = []


def directions(family: Family) -> tuple[int, ...]:
    return (0,) if family.profile.unidirectional else (0, 1)


def frame_size(family: Family) -> int:
    """64 B, 78 B for IPv6 (CSIT's smallest), or the family's own minimum when larger."""
    return max(64, family.profile.min_frame_size_b)


def require_trex() -> None:
    problems = []
    if not (TREX_DIR / "t-rex-64").is_file():
        problems.append(f"TRex is not installed at {TREX_DIR} (run ../shared/trex/install)")
    if os.geteuid() != 0:
        problems.append("namespaces and TRex need root")
    if problems:
        if os.environ.get("NDRPDR_REQUIRE_TREX") == "1":
            pytest.fail(f"NDRPDR_REQUIRE_TREX=1 but {'; '.join(problems)}")
        pytest.skip("; ".join(problems))


@pytest.fixture(scope="module")
def profiles_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CSIT's TRex profiles, extracted from its git directory into a temporary directory."""
    git_dir = csit_git_or_skip()
    into = tmp_path_factory.mktemp("csit-profiles")
    archive = subprocess.run(
        ["git", "-C", str(git_dir), "archive", "HEAD", PROFILES_DIR],
        capture_output=True, check=True, timeout=120,
    )  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True, timeout=60)
    return into / PROFILES_DIR


@pytest.fixture(scope="module")
def daily() -> frozenset[str]:
    """The test ids of CSIT's daily job (``csit_suites.daily_ids``)."""
    return daily_ids(csit_git_or_skip())


@pytest.fixture(scope="module")
def bed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CaptureBed]:
    require_trex()
    capture_bed = CaptureBed(tmp_path_factory.mktemp("trex"))
    try:
        yield capture_bed
    finally:
        capture_bed.close()
        path = os.environ.get("NDRPDR_CSITEQ_RESULTS")
        if path:
            Path(path).write_text(json.dumps({"frames": FRAMES, "results": _RESULTS}, indent=1))


_CSIT_CACHE: dict[tuple[str, int, int], Frames] = {}
_OURS_CACHE: dict[str, Frames] = {}


#: Bursts sent again when one arrived short (a veth's backlog can overflow on a busy machine).
ATTEMPTS = 3


def _burst(send: Callable[[], list[bytes]], what: str) -> Frames:
    """The frames of one burst, sent again (up to ATTEMPTS) while fewer than FRAMES arrive."""
    counts = []
    for _ in range(ATTEMPTS):
        frames = send()
        if len(frames) == FRAMES:
            return Frames(frames)
        counts.append(len(frames))
    raise AssertionError(f"{what}: captured {counts} frames in {ATTEMPTS} bursts of {FRAMES}")


def csit_frames(bed: CaptureBed, folder: Path, name: str, direction: int, size: int) -> Frames:
    key = (name, direction, size)
    if key not in _CSIT_CACHE:
        client = bed.client
        assert client is not None
        _CSIT_CACHE[key] = _burst(
            lambda: client.csit_burst(
                path=str(folder / f"{name}.py"), direction=direction, framesize=size,
                port=direction, iface=f"cp{direction}", count=FRAMES, pps=PPS,
            ),
            f"CSIT's {name} direction {direction}",
        )  # fmt: skip
    return _CSIT_CACHE[key]


def our_trex_frames(bed: CaptureBed, family: Family, direction: int, size: int) -> Frames:
    src, dst = PORT_MACS[direction]
    traffic = direction_traffic(family.profile, size, direction, src, dst)
    (spec,) = traffic.streams(PPS)
    payload = stream_payload(spec)
    key = repr(payload)
    if key not in _OURS_CACHE:
        client = bed.client
        assert client is not None
        _OURS_CACHE[key] = _burst(
            lambda: client.ours_burst(
                payload, port=direction, iface=f"cp{direction}", count=FRAMES, pps=PPS
            ),
            f"{family.id} direction {direction}",
        )
    return _OURS_CACHE[key]


def renumbered(family: Family, direction: int, names: list[str]) -> list[str]:
    """The declared renumberings that apply to these frames, one line per field."""
    out: dict[str, list[str]] = {}
    for d in family.csit_differences:
        if d.renumber and d.field in names and d.direction in (None, direction):
            out.setdefault(d.field, []).append(f"{d.renumber[0]} -> {d.renumber[1]}")
    return [f"{field} renumbered ({', '.join(rules)})" for field, rules in out.items()]


@pytest.mark.parametrize("family", COMPARED, ids=[f.id for f in COMPARED])
def test_family_sends_its_csit_profiles_frames(
    family: Family, bed: CaptureBed, profiles_dir: Path, daily: frozenset[str]
) -> None:
    assert family.csit_profile is not None
    source = (profiles_dir / f"{family.csit_profile}.py").read_text()
    random = "STLVmFlowVarRepeatableRandom" in source
    size = frame_size(family)
    failures: list[str] = []
    for direction in directions(family):
        where = f"{family.id} direction {direction} ({family.csit_profile}, {size} B)"
        src, dst = PORT_MACS[direction]
        spec = Frames(stream_frames(family.profile, size, direction, src, dst, FRAMES))
        through_trex = our_trex_frames(bed, family, direction, size)
        ours_random = any(v.op == "random" for v in family.profile.directions[direction].vary)
        path_diffs = compare(through_trex, spec, direction, random=ours_random)
        theirs = csit_frames(bed, profiles_dir, family.csit_profile, direction, size)
        # TRex's draws are not stream_frames': where either side draws, ours is what TRex sent
        ours = through_trex if random or ours_random else spec
        diffs = compare(
            theirs, ours, direction, random=random or ours_random, declared=family.csit_differences
        )
        unexplained = [d for d in diffs if not d.purpose]
        _RESULTS.append({
            "family": family.id, "direction": direction, "profile": family.csit_profile,
            "frame_size": size, "frames": FRAMES, "random": random, "daily": family.id in daily,
            "differs": [d.text() for d in unexplained],
            "on_purpose": [d.text() for d in diffs if d.purpose]
            + renumbered(family, direction, theirs.names),
            "trex_path": [d.text() for d in path_diffs],
            "ours_sha256": ours_digest(family, direction, size, FRAMES),
        })  # fmt: skip
        failures += [f"{where}: ours via TRex vs stream_frames: {d.text()}" for d in path_diffs]
        failures += [f"{where}: {d.text()}" for d in unexplained]
        for text in [d.text() for d in diffs if d.purpose] + renumbered(
            family, direction, theirs.names
        ):
            print(f"{where}: differs on purpose: {text}")
    assert not failures, "\n".join(failures)


def test_fields_are_read_to_the_inner_headers() -> None:
    """The dissection reaches a GENEVE frame's inner IPv4 header (what the comparison needs)."""
    family = next(f for f in COMPARED if "geneve" in f.id)
    src, dst = PORT_MACS[1]
    (frame,) = stream_frames(family.profile, frame_size(family), 1, src, dst, 1)
    fields = header_fields(frame)
    assert "geneve.vni" in fields and "ip2.src" in fields
