"""The manual's generated parts: families, drivers, the record's fields, the keyword docs.

``.. ndrpdr-families::`` and ``.. ndrpdr-drivers::`` insert what the code says at build time
(``ndrpdr families`` and ``ndrpdr drivers`` print the same), ``.. ndrpdr-record-fields::``
the top-level fields of an NDRPDR record (``:: soak``: the soak section's) from the record's
JSON Schema, so the manual cannot go stale; the Libdoc of ``NdrPdrLibrary`` is written to
``_static/NdrPdrLibrary.html`` before the pages are
read, so it is copied into the HTML output and the pages' links to it are checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from robot.libdoc import libdoc
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

from ndrpdr.cli.families_cmd import families_table
from ndrpdr.drivers.docs import drivers_text
from ndrpdr.results.schema import record_schema

#: Page names Sphinx keeps for pages of its own (a page of ours so named would be replaced).
RESERVED = frozenset({"search", "genindex", "modindex"})
#: Where the keyword documentation is written, relative to the manual's source directory.
LIBDOC = Path("_static") / "NdrPdrLibrary.html"


class FamiliesDirective(SphinxDirective):
    """The table of every test family, from the family table in code."""

    def run(self) -> list[nodes.Node]:
        """The table's nodes."""
        return self.parse_text_to_nodes(families_table())


class DriversDirective(SphinxDirective):
    """Every driver with its options, from the drivers' descriptions."""

    def run(self) -> list[nodes.Node]:
        """The list's nodes."""
        return self.parse_text_to_nodes(drivers_text())


def _field_type(spec: dict[str, Any]) -> str:
    """A schema property's type as the table shows it: const, enum, $ref or JSON type."""
    if "const" in spec:
        return f"``{spec['const']}``"
    if "enum" in spec:
        return " | ".join(f"``{value}``" for value in spec["enum"])
    if "$ref" in spec:
        return _ref_name(spec)
    kind = spec.get("type", "")
    text = " or ".join(kind) if isinstance(kind, list) else str(kind)
    if "format" in spec:
        text += f" ({spec['format']})"
    if "$ref" in spec.get("items", {}):
        text += f" of {_ref_name(spec['items'])}"
    return text


def _ref_name(spec: dict[str, Any]) -> str:
    """The name of the definition a ``$ref`` points to (``#/$defs/bounds`` -> ``bounds``)."""
    return str(spec["$ref"]).rsplit("/", 1)[-1]


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
        about = _about(spec, defs)
        lines += [
            f"   * - ``{name}``",
            f"     - {'yes' if name in record['required'] else 'no'}",
            f"     - {_field_type(spec)}",
            f"     - {about}",
        ]
    return "\n".join(lines) + "\n"


class RecordFieldsDirective(SphinxDirective):
    """The NDRPDR record's top-level fields, or (argument ``soak``, ``mrr``) that kind's
    section's, from the record's JSON Schema."""

    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        """The table's nodes."""
        kind = self.arguments[0] if self.arguments else "ndrpdr"
        return self.parse_text_to_nodes(record_fields_table(kind))


def write_libdoc(app: Sphinx) -> None:
    """Write NdrPdrLibrary's Libdoc into the source tree's _static (ExtensionError on failure).

    Every HTML build writes it anew; another builder (linkcheck, after the HTML build in
    tox's docs env) only when it is missing.
    """
    target = Path(app.srcdir) / LIBDOC
    if app.builder.format != "html" and target.is_file():
        return
    target.parent.mkdir(exist_ok=True)
    status = libdoc("NdrPdrLibrary", str(target), name="NdrPdrLibrary", quiet=True)
    if status != 0 or not target.is_file():
        raise ExtensionError(f"Libdoc of NdrPdrLibrary failed (status {status}); {target} missing")


def generated_pages(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """The pages whose content comes from code: read again every build.

    ExtensionError for a page named as one of Sphinx's own (``RESERVED``).
    """
    taken = sorted(RESERVED & env.found_docs)
    if taken:
        raise ExtensionError(f"docs/{taken[0]}.rst: Sphinx writes its own page of that name")
    return [name for name in ("families", "drivers", "results") if name in env.found_docs]


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives and the Libdoc step."""
    app.add_directive("ndrpdr-families", FamiliesDirective)
    app.add_directive("ndrpdr-drivers", DriversDirective)
    app.add_directive("ndrpdr-record-fields", RecordFieldsDirective)
    app.connect("builder-inited", write_libdoc)
    app.connect("env-get-outdated", generated_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
