"""The drivers as the manual (docs/reference/drivers.rst) and ``ndrpdr drivers`` show them."""

from __future__ import annotations

import textwrap

from ndrpdr.drivers.description import DriverDescription
from ndrpdr.drivers.options import option_docs
from ndrpdr.drivers.registry import descriptions

_WIDTH = 79


def _shapes(description: DriverDescription) -> str:
    return " and ".join(f"{count + 1}-node" for count in description.duts)


def driver_text(description: DriverDescription) -> list[str]:
    """One driver: a heading line, what it is, where it runs, each option (RST)."""
    lines = [f"``{description.name}`` ({description.role})"]
    about = (
        f"{description.summary}. Runs on: "
        f"{description.kinds_text} (access kind {', '.join(description.access)}); "
        f"{_shapes(description)} testbeds."
    )
    software = description.software
    if software is not None:
        about += (
            f" Supports {software.name} {', '.join(software.supported)} (``ndrpdr check`` "
            "compares the node's)."
        )
    lines += textwrap.wrap(
        about, _WIDTH, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False
    )
    docs = option_docs(description.options)
    if docs:
        lines.append("")
    for doc in docs:
        item = f"- ``{doc.name}`` ({doc.type}; default {doc.default}): {doc.doc}."
        lines += textwrap.wrap(
            item,
            _WIDTH,
            initial_indent="    ",
            subsequent_indent="      ",
            break_on_hyphens=False,
            break_long_words=False,
        )
    return lines


def drivers_text(names: tuple[str, ...] = ()) -> str:
    """Every driver (or those named), TGs first, separated by blank lines."""
    chosen = [d for d in descriptions() if not names or d.name in names]
    return "\n\n".join("\n".join(driver_text(d)) for d in chosen) + "\n"
