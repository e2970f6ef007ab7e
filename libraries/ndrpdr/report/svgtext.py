"""Text and numbers inside the result SVGs: escaping, coordinates, fitting text to a width.

Pure functions shared by the plots of ``ndrpdr.results`` (the search trace
and its panels). Sizes are in SVG user units, which the plots use as pixels.
"""

from __future__ import annotations

import html
import re

#: Characters XML 1.0 does not allow at all (most control characters, lone surrogates).
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: Rough width of one character relative to the font size (sans-serif).
CHAR_EM = 0.58
#: The plots' default font size [px].
FONT = 10


def escape(text: object) -> str:
    """``text`` as a string safe in XML/HTML text and quoted attribute values.

    Characters XML 1.0 does not allow at all (most control characters) are
    replaced by U+FFFD, then ``& < > " '`` are escaped.

    Args:
        text: Anything; it is converted with ``str``.

    Returns:
        The escaped text.
    """
    return html.escape(_XML_ILLEGAL.sub("\ufffd", str(text)), quote=True)


def num(value: float) -> str:
    """A coordinate [px] rounded to one decimal, without a useless ".0" ("12", "12.5")."""
    text = f"{value:.1f}"
    if text == "-0.0":
        return "0"
    return text[:-2] if text.endswith(".0") else text


def seconds_text(value: float) -> str:
    """A time [s] for a label: up to nine decimals, trailing zeros dropped ("0.5", "34")."""
    return f"{round(value, 9):g}"


def text_width(text: str, font_px: float = FONT) -> float:
    """The rough width [px] of ``text`` on one line at ``font_px``."""
    return len(text) * font_px * CHAR_EM


def fit(text: str, width_px: float, font_px: float = FONT) -> str:
    """``text`` on one line (whitespace collapsed), cut with an ellipsis to about ``width_px``."""
    text = " ".join(text.split())
    room = max(4, int(width_px / (font_px * CHAR_EM)))
    return text if len(text) <= room else text[: room - 1].rstrip() + "\u2026"
