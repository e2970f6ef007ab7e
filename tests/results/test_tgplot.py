"""The trace plot marks TG-limited trials and the TG's ceiling (real sim searches)."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from typing import Any

from record_helpers import SIM, sim_record

from ndrpdr.report.traceplot import trace_svg
from ndrpdr.results.tglimit import trial_tg_limited
from ndrpdr.topology.loader import load_topology

SVG = "{http://www.w3.org/2000/svg}"


def _record(sends_pps: float | None) -> dict[str, Any]:
    topology = load_topology(SIM)
    if sends_pps is not None:
        tg = dataclasses.replace(
            topology.tg, options={**topology.tg.options, "max_offered_pps": sends_pps}
        )
        topology = dataclasses.replace(topology, nodes={**topology.nodes, "TG": tg})
    return sim_record(topology)


def _group(root: ET.Element, name: str) -> ET.Element | None:
    return next((g for g in root.iter(f"{SVG}g") if g.get("class") == name), None)


def test_tg_limited_trials_are_marked_at_what_the_tg_sent() -> None:
    record = _record(1e6)
    root = ET.fromstring(trace_svg(record))
    group = _group(root, "tg-limited")
    assert group is not None
    lines = list(group.iter(f"{SVG}line"))
    limited = [t for t in record["trials"] if trial_tg_limited(t)]
    assert len(lines) == len(limited) > 0
    # every mark sits below its trial's bar: the TG sent less than the load intended
    whole = _group(root, "trials")  # the whole-search panel, where the marks are
    assert whole is not None
    bars = whole.findall(f"{SVG}rect")
    by_index = {t["index"]: bar for t, bar in zip(record["trials"], bars, strict=True)}
    for trial, line in zip(limited, lines, strict=True):
        bar = by_index[trial["index"]]
        bar_centre = float(bar.get("y", 0)) + float(bar.get("height", 0)) / 2
        assert float(line.get("y1", 0)) > bar_centre  # SVG y grows downwards
        title = line.find(f"{SVG}title")
        assert title is not None and "TG-limited, sent 1 Mpps" in (title.text or "")
        # numbered like its bar (and the console): the record's index + 1
        assert (title.text or "").startswith(f"#{trial['index'] + 1}: ")
    ceiling = _group(root, "tg-ceiling")
    assert ceiling is not None
    assert "TG-limited: sent at most 1 Mpps" in "".join(ceiling.itertext())


def test_a_tg_that_keeps_up_draws_no_marks() -> None:
    root = ET.fromstring(trace_svg(_record(None)))
    assert _group(root, "tg-limited") is None
    assert _group(root, "tg-ceiling") is None
