"""The docs' table of the CSIT comparison, from the families' declarations and the last run.

After a run of ``test_csit_traffic_real.py`` with ``NDRPDR_CSITEQ_RESULTS=<file>``::

    PYTHONPATH=libraries:tests:tests/csit python tests/csit/csit_table.py <file> [report.txt]

keeps the run's outcome in ``tests/csit/measured.json`` (committed), rewrites
the table between the markers of ``docs/csit.rst`` and, given a second
path, writes the plain-text report there. ``test_csit_declarations.py`` checks
that the committed table is what ``render`` makes of the declarations and
``measured.json``, and that every family still sends the frames the run
measured (``ours_sha256``): a family whose traffic, ``csit_profile`` or
differences change without a new run fails it.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trexcapture import PORT_MACS

from ndrpdr.families import Family, all_families
from ndrpdr.profiles import stream_frames

ROOT = Path(__file__).resolve().parents[2]
MEASURED = ROOT / "tests" / "csit" / "measured.json"
PAGE = ROOT / "docs" / "csit.rst"
START = ".. csit-table-start"
END = ".. csit-table-end"


def load_measured(path: Path = MEASURED) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def trim(run: dict[str, Any]) -> dict[str, Any]:
    """What the docs need of a run's results file (sorted, so a rerun diffs cleanly)."""
    keep = ("family", "direction", "profile", "frame_size", "daily", "differs", "on_purpose",
            "trex_path", "ours_sha256")  # fmt: skip
    rows = [{k: r.get(k) for k in keep} for r in run["results"]]
    rows.sort(key=lambda r: (r["family"], r["direction"]))
    return {"frames": run["frames"], "results": rows}


def ours_digest(family: Family, direction: int, size: int, count: int) -> str:
    """SHA-256 of the first ``count`` frames the family sends (what a run measured)."""
    src, dst = PORT_MACS[direction]
    frames = stream_frames(family.profile, size, direction, src, dst, count)
    return hashlib.sha256(b"".join(frames)).hexdigest()


def stale(families: Sequence[Family], measured: dict[str, Any]) -> list[str]:
    """The measured family directions whose traffic changed since (or that were never measured)."""
    out = []
    for family, direction, row in outcomes(families, measured):
        if row is None:
            out.append(f"{family.id} direction {direction}: never measured")
        elif row.get("ours_sha256") != ours_digest(
            family, direction, row["frame_size"], measured["frames"]
        ):
            out.append(f"{family.id} direction {direction}: its frames changed since the run")
    return out


def _directions(family: Family) -> tuple[int, ...]:
    return (0,) if family.profile.unidirectional else (0, 1)


def verdict(row: dict[str, Any] | None) -> str:
    """One direction's outcome in words."""
    if row is None:
        return "not measured"
    if row["differs"] or row["trex_path"]:
        first = [*row["trex_path"], *row["differs"]]
        return "not equal yet: " + "; ".join(first)
    if row["on_purpose"]:
        return "equal, differs on purpose: " + "; ".join(row["on_purpose"])
    return "equal"


def outcomes(
    families: Sequence[Family], measured: dict[str, Any]
) -> list[tuple[Family, int, dict[str, Any] | None]]:
    """(family, direction, its measured row or None) for each compared family direction."""
    rows = {(r["family"], r["direction"], r["profile"]): r for r in measured["results"]}
    return [
        (f, d, rows.get((f.id, d, f.csit_profile)))
        for f in families
        if f.csit_profile and not f.profile.transactions
        for d in _directions(f)
    ]


def share(families: Sequence[Family], measured: dict[str, Any]) -> tuple[int, int]:
    """(equal, all) family directions of CSIT's daily ids (equal: on purpose included)."""
    daily = [(f, d, r) for f, d, r in outcomes(families, measured) if r and r.get("daily")]
    equal = [1 for _, _, r in daily if verdict(r).startswith("equal")]
    return len(equal), len(daily)


def _reasons(family: Family) -> str:
    """The declared differences, by reason (address fields of the family's IP version only)."""
    versions = {h.ip_version for h in family.profile.directions}
    out: dict[str, list[str]] = {}
    for d in family.csit_differences:
        layer = d.field.split(".")[0]
        if (layer == "ip" and 4 not in versions) or (layer == "ipv6" and 6 not in versions):
            continue
        where = "" if d.direction is None else f" (direction {d.direction})"
        out.setdefault(d.reason, []).append(d.field + where)
    return "; ".join(f"{', '.join(dict.fromkeys(v))}: {k}" for k, v in out.items()) or "none"


def render(families: Sequence[Family], measured: dict[str, Any]) -> str:
    """The reST list-table (with its lead line) for the docs page."""
    equal, total = share(families, measured)
    lines = [
        f"Last measured run: the first {measured['frames']} frames of each direction. "
        f"Of the family directions of CSIT's daily ids, {equal} of {total} "
        f"({100 * equal / max(total, 1):.1f} %) send CSIT's frames header for header.",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 22 18 20 40",
        "",
        "   * - Family",
        "     - CSIT profile",
        "     - Declared differences",
        "     - Measured",
    ]
    by_family: dict[str, list[str]] = {}
    for family, direction, row in outcomes(families, measured):
        by_family.setdefault(family.id, []).append(f"direction {direction}: {verdict(row)}")
    for family in families:
        if not family.csit_profile:
            continue
        if family.profile.transactions:
            measured_text = ["stateful (TRex ASTF): not compared here"]
        else:
            measured_text = by_family[family.id]
        lines += [
            f"   * - ``{family.id}``",
            f"     - ``{family.csit_profile}``",
            f"     - {_reasons(family)}",
            "     - " + measured_text[0],
        ]
        lines += [f"\n       {text}" for text in measured_text[1:]]
    return "\n".join(lines) + "\n"


def page_table(text: str) -> str:
    """The generated part of the docs page (between the markers)."""
    start, end = text.index(START) + len(START), text.index(END)
    return text[start:end].strip("\n") + "\n"


def report(families: Sequence[Family], measured: dict[str, Any]) -> str:
    """The plain-text report: every compared family direction and its outcome."""
    equal, total = share(families, measured)
    lines = [
        f"CSIT TRex profile vs ours, through TRex v3.08, first {measured['frames']} frames per "
        f"direction, header by header in order (payload and UDP/TCP checksums aside; IPv4 header "
        f"checksums checked valid on both sides).",
        f"Equal share (family directions of CSIT's daily ids): {equal}/{total} = "
        f"{100 * equal / max(total, 1):.1f} %",
        "",
    ]
    for family, direction, row in outcomes(families, measured):
        lines.append(f"{family.id} direction {direction} [{family.csit_profile}]: {verdict(row)}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str]) -> None:
    run = trim(json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    MEASURED.write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")
    families = all_families()
    text = PAGE.read_text(encoding="utf-8")
    start, end = text.index(START) + len(START), text.index(END)
    PAGE.write_text(
        text[:start] + "\n\n" + render(families, run) + "\n" + text[end:], encoding="utf-8"
    )
    if len(argv) > 1:
        Path(argv[1]).write_text(report(families, run), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
