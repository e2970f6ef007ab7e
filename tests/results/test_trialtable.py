"""The trial table: well-formed HTML, one row per trial, loss tints, escaping, elision."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from record_helpers import SIM, sim_record

from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.report.trialfacts import HIGH_LOSS, LOSS_TINTS, LOW_LOSS, ZERO_LOSS, loss_class
from ndrpdr.report.trialtable import COLUMNS, trials_html
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.units import format_rate

NASTY = 'rate <b>short</b> & "odd" \x07'


@pytest.fixture(scope="module")
def topology() -> Topology:
    return load_topology(SIM)


@pytest.fixture(scope="module")
def passed(topology: Topology) -> dict[str, Any]:
    """64 B, default goals: 34 trials of 1 s, all three loss classes."""
    return sim_record(topology)


def _parse(html: str) -> ET.Element:
    root = ET.fromstring(html)
    assert root.tag == "table"
    return root


def _rows(root: ET.Element) -> list[list[str]]:
    """The body's rows as lists of cell texts."""
    return [
        ["".join(td.itertext()) for td in tr] for tr in root.iter("tr") if tr.find("td") is not None
    ]


def test_table_of_a_real_search(passed: dict[str, Any]) -> None:
    html = trials_html(passed)
    root = _parse(html)
    heads = ["".join(th.itertext()) for th in root.iter("th")]
    assert heads == list(COLUMNS)
    rows = _rows(root)
    trials = passed["trials"]
    assert len(rows) == len(trials) == 34
    # Trial numbers count from 1, as the console prints them: the record's index + 1.
    assert [row[0] for row in rows] == [str(t["index"] + 1) for t in trials]
    assert rows[0][0] == "1"
    assert all(len(row) == len(COLUMNS) for row in rows)
    assert "<style" not in html
    assert "class=" not in html


def test_cells(passed: dict[str, Any]) -> None:
    rows = _rows(_parse(trials_html(passed)))
    trial = passed["trials"][1]
    assert trial["reason"]["phase"] == "short"
    assert rows[1] == [
        "2",
        "short/expect-fail (NDR)",
        "1",
        format_rate(trial["load_pps"]),
        f"{trial['intended_count']:,}",
        f"{trial['offered_count']:,}",
        "0",
        f"{trial['forwarded_count']:,}",
        f"{trial['loss_count']:,}",
        "0.389",
        "",
    ]
    assert rows[0][:4] == ["1", "probe/probe", "1", "29.762 Mpps"]
    assert rows[0][4] == rows[0][5] == "29,761,904"
    assert rows[0][9] == "85.2"
    assert rows[-1][1] == "final/continue (PDR)"


def test_rows_tinted_by_loss(passed: dict[str, Any]) -> None:
    root = _parse(trials_html(passed))
    body = [tr for tr in root.iter("tr") if tr.find("td") is not None]
    classes = [loss_class(t["loss_ratio"]) for t in passed["trials"]]
    assert set(classes) == {ZERO_LOSS, LOW_LOSS, HIGH_LOSS}
    for tr, kind in zip(body, classes, strict=True):
        assert tr.get("style") == f"background:{LOSS_TINTS[kind]}"
    assert len(set(LOSS_TINTS.values())) == 3


def test_short_trials_are_marked(topology: Topology) -> None:
    goals = ndr_pdr_goals(
        final_trial_duration_s=2.0, initial_trial_duration_s=0.5, duration_sum_s=4.0
    )
    record = sim_record(topology, goals=goals)
    durations = [row[2] for row in _rows(_parse(trials_html(record)))]
    assert sorted(durations) == ["0.5 (short)"] * 3 + ["2"] * 3


def test_text_is_escaped(passed: dict[str, Any]) -> None:
    record = copy.deepcopy(passed)
    record["trials"][2]["warnings"] = [NASTY, "second"]
    record["trials"][3]["reason"]["strategy"] = "<i>&"
    html = trials_html(record)
    assert "<b>" not in html
    assert "<i>" not in html
    assert "\x07" not in html
    assert "rate &lt;b&gt;short&lt;/b&gt; &amp; &quot;odd&quot;" in html
    rows = _rows(_parse(html))
    assert rows[2][10] == 'rate <b>short</b> & "odd" \ufffd; second'
    assert rows[3][1] == f"{record['trials'][3]['reason']['phase']}/<i>& (NDR)"


def test_failed_search_without_reasons(topology: Topology) -> None:
    record = sim_record(topology, fail_at=3)
    rows = _rows(_parse(trials_html(record)))
    assert len(rows) == 2
    assert [row[1] for row in rows] == ["probe/probe", "short/expect-fail (NDR)"]
    record["trials"][0]["reason"] = None
    assert _rows(_parse(trials_html(record)))[0][1] == "-"


def test_no_trials(topology: Topology) -> None:
    record = sim_record(topology, fail_at=1)
    html = trials_html(record)
    root = ET.fromstring(html)
    assert root.tag == "p"
    assert root.text == "no trials measured"


@pytest.mark.parametrize(
    ("max_rows", "first", "last"),
    [(10, 5, 5), (11, 6, 5), (1, 1, 0), (0, 0, 0), (33, 17, 16)],
)
def test_elision(passed: dict[str, Any], max_rows: int, first: int, last: int) -> None:
    rows = _rows(_parse(trials_html(passed, max_rows=max_rows)))
    hidden = 34 - max_rows
    assert len(rows) == max_rows + 1
    marker = rows[first]
    noun = "trial" if hidden == 1 else "trials"
    assert marker == [f"\u2026 {hidden} {noun} not shown (see the JSON record) \u2026"]
    assert [row[0] for row in rows[:first]] == [str(i) for i in range(1, first + 1)]
    assert [row[0] for row in rows[first + 1 :]] == [str(i) for i in range(35 - last, 35)]


def test_elision_row_spans_the_table(passed: dict[str, Any]) -> None:
    root = _parse(trials_html(passed, max_rows=4))
    spans = [td.get("colspan") for td in root.iter("td") if td.get("colspan")]
    assert spans == [str(len(COLUMNS))]


@pytest.mark.parametrize("max_rows", [34, 35, 1000, None])
def test_no_elision_when_everything_fits(passed: dict[str, Any], max_rows: int | None) -> None:
    html = trials_html(passed, max_rows=max_rows)
    assert "not shown" not in html
    assert len(_rows(_parse(html))) == 34


def test_negative_max_rows() -> None:
    with pytest.raises(ValueError, match="max_rows=-1"):
        trials_html({"trials": []}, max_rows=-1)


def test_columns_add_up_on_a_tg_that_falls_short(topology: Topology) -> None:
    """The issue's case: the DUT lost nothing, the loss ratio counts unsent frames."""
    import dataclasses

    tg = dataclasses.replace(topology.tg, options={**topology.tg.options, "max_offered_pps": 1e6})
    slow = dataclasses.replace(topology, nodes={**topology.nodes, "TG": tg})
    record = sim_record(slow)
    html = trials_html(record)
    rows = _rows(_parse(html))
    col = {name: COLUMNS.index(name) for name in COLUMNS}

    def number(text: str) -> int:
        return int(text.replace(",", ""))

    unsent_seen = False
    for row in rows:
        intended, offered = number(row[col["intended"]]), number(row[col["offered"]])
        unsent, forwarded = number(row[col["unsent"]]), number(row[col["forwarded"]])
        lost = number(row[col["lost"]])
        assert intended == offered + unsent
        assert offered == forwarded + lost
        assert lost == 0  # the DUT forwards 4.4 Mpps, the TG sends 1 Mpps
        if unsent:
            unsent_seen = True
            assert float(row[col["loss [%]"]]) > 0  # the loss is all unsent frames
    assert unsent_seen
    assert "color:#8a4b00;font-weight:bold" in html  # the TG-limited trials' unsent cells
