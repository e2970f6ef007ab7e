"""Plot axes in SVG, drawn alike for the search trace and the trend page.

Positions are in SVG user units, which the plots use as pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndrpdr.report.svgtext import escape, num

#: The colour of axes and text.
INK = "#222"
#: The colour of the grid lines.
GRID = "#e6e6e6"


def axes(
    box: tuple[float, float, float, float],
    y_ticks: Sequence[tuple[float, str]],
    x_ticks: Sequence[tuple[float, str]],
    title: str,
) -> list[str]:
    """Grid lines at the y ticks, the ticks' labels, the axis lines and the y axis ``title``.

    ``box`` is the plot area (left, top, right, bottom); a tick is its
    position on its axis and its label (plain text).
    """
    left, top, right, bottom = box
    grid = [f'<g stroke="{GRID}">']
    labels = []
    for y, text in y_ticks:
        grid.append(f'<line x1="{num(left)}" x2="{num(right)}" y1="{num(y)}" y2="{num(y)}"/>')
        labels.append(f'<text x="{num(left - 5)}" y="{num(y + 3.5)}">{escape(text)}</text>')
    grid.append("</g>")
    marks = [
        f'<line x1="{num(x)}" x2="{num(x)}" y1="{num(bottom)}" y2="{num(bottom + 4)}" '
        f'stroke="{INK}"/><text x="{num(x)}" y="{num(bottom + 15)}">{escape(text)}</text>'
        for x, text in x_ticks
    ]
    middle = num((top + bottom) / 2)
    return [
        *grid,
        f'<g text-anchor="end" fill="{INK}">{"".join(labels)}</g>',
        f'<g text-anchor="middle" fill="{INK}">{"".join(marks)}</g>',
        f'<path d="M{num(left)} {num(top)}V{num(bottom)}H{num(right)}" fill="none" '
        f'stroke="{INK}"/>',
        f'<text transform="rotate(-90 12 {middle})" x="12" y="{middle}" text-anchor="middle" '
        f'fill="{INK}">{escape(title)}</text>',
    ]
