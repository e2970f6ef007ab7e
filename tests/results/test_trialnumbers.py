"""One trial, one number: the console's progress line, the trial table and the plot agree.

A real search on the simulator (with the max-load calibration trial, which is
not a search trial and has no number) prints its progress lines through the
library's own ProgressPrinter; its record then goes through the trial table
and the trace plot.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from record_helpers import SIM, sim_search

from ndrpdr.console.progress import ProgressPrinter
from ndrpdr.report.traceplot import trace_svg
from ndrpdr.report.trialfacts import trial_number
from ndrpdr.report.trialtable import trials_html
from ndrpdr.topology.loader import load_topology
from ndrpdr.units import format_rate

SVG = "{http://www.w3.org/2000/svg}"
_CONSOLE = re.compile(r"#\s*(\d+)\s+(\S+ \S+) x (\S+) s  loss ([\d.]+) %")
_TOOLTIP = re.compile(r"#(\d+) (\S+ \S+) x (\S+) s, loss ([\d.]+) %")


def _bars(root: ET.Element, group: str) -> dict[int, tuple[str, str]]:
    """Number -> (load, duration) from the tooltips of a panel's bars."""
    found = {}
    g = next(g for g in root.iter(f"{SVG}g") if g.get("class") == group)
    for bar in g.findall(f"{SVG}rect"):
        title = bar.find(f"{SVG}title")
        assert title is not None
        match = _TOOLTIP.match(title.text or "")
        assert match, title.text
        found[int(match.group(1))] = (match.group(2), match.group(3))
    return found


def test_console_table_and_plot_number_trials_alike() -> None:
    lines: list[str] = []
    run = sim_search(load_topology(SIM), calibrate=True, progress=ProgressPrinter(lines.append))
    record = run.record.to_json()
    trials = record["trials"]
    assert record["search"]["max_load_cap"]["trial"] is not None  # a calibration trial ran

    console = {}
    for line in lines:
        match = _CONSOLE.match(line)
        if match:  # estimate lines carry no trial
            console[int(match.group(1))] = (match.group(2), match.group(3))
    assert sorted(console) == list(range(1, len(trials) + 1))

    table = {}
    for row in ET.fromstring(trials_html(record)).iter("tr"):
        cells = ["".join(td.itertext()) for td in row.iter("td")]
        if cells:
            table[int(cells[0])] = (cells[3], cells[2].removesuffix(" (short)"))
    root = ET.fromstring(trace_svg(record))
    whole, zoom = _bars(root, "trials"), _bars(root, "zoom-trials")

    for trial in trials:
        number = trial_number(trial)
        assert number == trial["index"] + 1
        expected = (format_rate(trial["load_pps"]), f"{trial['duration_s']:g}")
        assert console[number] == table[number] == whole[number] == expected
        if number in zoom:
            assert zoom[number] == expected
    assert table.keys() == whole.keys() == console.keys()
    assert 1 not in zoom and zoom.keys() == set(range(2, len(trials) + 1))
    # The numbers drawn over the zoom panel's bars are the same numbers.
    drawn = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "trial-numbers")
    assert {int("".join(t.itertext())) for t in drawn} <= set(console)
