"""The topology JSON Schema: a hand-written base plus what the driver descriptions say.

``schemas/topology.base.schema.json`` holds everything but the drivers;
``build_schema`` adds, from ``ndrpdr.drivers``, the driver names each node
type takes and one ``options_<type>_<driver>`` definition per driver (from
its options dataclass), each applied to the nodes of that driver. The
loader validates with the schema built for the drivers known at the time
(``schema_for``: a driver registered later, a plugin, is in the next);
``schemas/topology.schema.json``
(linked from ``topologies/``, for editors) is the same schema written out
by ``python -m ndrpdr.topology.schema`` (a test checks that it is current).
"""

from __future__ import annotations

import copy
import functools
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from ndrpdr.drivers import DriverDescription, descriptions, options_schema
from ndrpdr.topology.model import NodeType

BASE_FILE = "schemas/topology.base.schema.json"
"""The hand-written part, relative to the ``ndrpdr.topology`` package."""

SCHEMA_FILE = "schemas/topology.schema.json"
"""The whole schema as written for editors, relative to the ``ndrpdr.topology`` package."""


def _if_node(role: str, driver: str | None = None) -> dict[str, Any]:
    properties: dict[str, Any] = {"type": {"const": role}}
    required = ["type"]
    if driver is not None:
        properties["driver"] = {"const": driver}
        required.append("driver")
    return {"properties": properties, "required": required}


def build_schema(known: tuple[DriverDescription, ...] | None = None) -> dict[str, Any]:
    """The topology JSON Schema (draft 2020-12) for the ``known`` drivers (default: those
    known now)."""
    known = descriptions() if known is None else known
    text = resources.files("ndrpdr.topology").joinpath(BASE_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    schema.pop("$comment", None)
    node = schema["$defs"]["node"]
    rules: list[dict[str, Any]] = []
    roles: tuple[NodeType, ...] = ("TG", "DUT")
    for role in roles:
        names = [d.name for d in known if d.role == role]
        rules.append({"if": _if_node(role), "then": {"properties": {"driver": {"enum": names}}}})
    for description in known:
        name = f"options_{description.role.lower()}_{description.name}"
        summary = f"Options of the {description.role} driver {description.name}: "
        schema["$defs"][name] = options_schema(
            description.options, summary + description.summary + "."
        )
        rules.append(
            {
                "if": _if_node(description.role, description.name),
                "then": {"properties": {"options": {"$ref": f"#/$defs/{name}"}}},
            }
        )
    node["allOf"] = rules
    return schema


def topology_schema() -> dict[str, Any]:
    """The built schema for the drivers known now (callers must not change it)."""
    return schema_for(descriptions())


@functools.lru_cache(maxsize=4)
def schema_for(known: tuple[DriverDescription, ...]) -> dict[str, Any]:
    """The built schema for the ``known`` drivers, made once for each set of them (callers
    must not change it)."""
    return build_schema(known)


def schema_text() -> str:
    """The schema as ``schemas/topology.schema.json`` holds it."""
    return json.dumps(copy.deepcopy(topology_schema()), indent=2) + "\n"


def shipped_schema_path() -> Path:
    """Where the written schema lives in this checkout or installation."""
    return Path(str(resources.files("ndrpdr.topology").joinpath(SCHEMA_FILE)))


def main() -> int:
    """Write ``schemas/topology.schema.json`` (run after changing a driver's options)."""
    path = shipped_schema_path()
    path.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
