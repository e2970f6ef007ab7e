"""The axes both plot kinds draw (the search trace's panels and the trend page)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ndrpdr.report.svgaxes import INK, axes


def _svg(parts: list[str]) -> ET.Element:
    return ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>')


def test_a_grid_line_and_a_label_per_y_tick_and_a_mark_per_x_tick() -> None:
    box = (70.0, 20.0, 400.0, 200.0)
    svg = _svg(
        axes(box, [(200.0, "0"), (110.0, "1 Mpps")], [(70.0, "0 s"), (235.5, "5 s")], "load")
    )
    ns = "{http://www.w3.org/2000/svg}"
    grid, y_labels, x_marks = svg.findall(f"{ns}g")
    assert [line.get("y1") for line in grid] == ["200", "110"]
    assert {line.get("x1") for line in grid} == {"70"} and {line.get("x2") for line in grid} == {
        "400"
    }
    assert [t.text for t in y_labels.findall(f"{ns}text")] == ["0", "1 Mpps"]
    assert [t.get("x") for t in x_marks.findall(f"{ns}text")] == ["70", "235.5"]
    assert [t.get("y") for t in x_marks.findall(f"{ns}text")] == ["215", "215"]  # under the axis
    frame = svg.find(f"{ns}path")
    assert frame is not None and frame.get("d") == "M70 20V200H400"
    title = svg.findall(f"{ns}text")[-1]
    assert title.text == "load" and title.get("transform") == "rotate(-90 12 110)"
    assert title.get("fill") == INK


def test_labels_and_title_are_escaped() -> None:
    parts = axes(
        (0.0, 0.0, 10.0, 10.0), [(5.0, "<a&b>")], [(5.0, '"x"')], "load [frames/s] & <more>"
    )
    svg = _svg(parts)  # well-formed XML, so every text was escaped
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["<a&b>", '"x"', "load [frames/s] & <more>"]
