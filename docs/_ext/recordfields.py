"""The result record's fields as RST tables, from the record's JSON Schema.

``record_fields_table()`` lists the top-level fields of an NDRPDR record,
``record_fields_table("soak")`` (or ``"mrr"``) the fields of that kind's own
section; ``genreference.py`` writes them to ``docs/reference/record-fields.rst``.
"""

from __future__ import annotations

from typing import Any

from ndrpdr.results.schema import record_schema


def _ref_name(spec: dict[str, Any]) -> str:
    """The name of the definition a ``$ref`` points to (``#/$defs/bounds`` -> ``bounds``)."""
    return str(spec["$ref"]).rsplit("/", 1)[-1]


def _field_type(spec: dict[str, Any]) -> str:
    """A schema property's type as the table shows it: const, enum, $ref or JSON type."""
    if "const" in spec:
        return f"``{spec['const']}``"
    if "enum" in spec:
        return " or ".join(f"``{value}``" for value in spec["enum"])
    if "$ref" in spec:
        return _ref_name(spec)
    kind = spec.get("type", "")
    text = " or ".join(kind) if isinstance(kind, list) else str(kind)
    if "format" in spec:
        text += f" ({spec['format']})"
    if "$ref" in spec.get("items", {}):
        text += f" of {_ref_name(spec['items'])}"
    return text


def _about(spec: dict[str, Any], defs: dict[str, Any]) -> str:
    """What a property holds: its description, else its definition's; and the fields inside."""
    target = defs.get(_ref_name(spec), {}) if "$ref" in spec else spec
    items = spec.get("items", {})
    if "$ref" in items:
        target = defs.get(_ref_name(items), {})
    about = str(spec.get("description") or target.get("description", ""))
    inner = list(target.get("properties", {}))
    if inner:
        fields = ", ".join(f"``{name}``" for name in inner)
        about = f"{about} Fields: {fields}." if about else f"Fields: {fields}."
    return about


def record_fields_table(kind: str = "ndrpdr") -> str:
    """The NDRPDR record's top-level fields as an RST list-table, from the shipped schema;
    for another ``kind`` (``mrr``, ``soak``) the fields of its own section (the rest are
    the NDRPDR record's)."""
    defs = record_schema()["$defs"]
    record = defs[f"{kind}_record"]
    if kind != "ndrpdr":
        record = record["properties"][kind]
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 14 10 14 62",
        "   :class: fixed-widths",
        "",
        "   * - field",
        "     - required",
        "     - type",
        "     - what it holds",
    ]
    for name, spec in record["properties"].items():
        lines += [
            f"   * - ``{name}``",
            f"     - {'yes' if name in record['required'] else 'no'}",
            f"     - {_field_type(spec)}",
            f"     - {_about(spec, defs)}",
        ]
    return "\n".join(lines) + "\n"
