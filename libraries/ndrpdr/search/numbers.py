"""Validation of numeric inputs, shared by every public entry point."""

from __future__ import annotations

import math

from ndrpdr.search.errors import SearchInputError


def finite_number(label: str, value: object) -> float:
    """``value`` as a float, or SearchInputError naming ``label`` and the value.

    Rejects non-numbers (booleans included), NaN and infinities; range
    checks are the caller's, as they differ per field.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SearchInputError(f"{label}={value!r} is not a number")
    if not math.isfinite(value):
        raise SearchInputError(f"{label}={value!r} is not finite")
    return float(value)
