"""Placeholders: the values a copied example topology still waits for.

The example topologies (``topologies/*.yaml.example``,
``topologies/csit-2n-example.yaml``) write every value that only the
testbed knows (hosts, logins, key files, MAC and PCI addresses) as
``<what it is, e.g. an example>``, so a copy that was not filled in fails
``ndrpdr validate`` instead of sending traffic to someone else's address.

A placeholder is a string value that

* is written between ``<`` and ``>`` (anywhere in the file);
* or is a template variable, ``{{ name }}``, that was not rendered (CSIT's
  cloud templates);
* or is an all-zero address in a ``mac_address`` or ``pci_address`` field
  (CSIT's own example files).

The check runs before the schema's, which would reject most placeholders
as malformed addresses without saying why; it lists every placeholder of
the file in one message.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from typing import Any

from ndrpdr.topology.errors import TopologyError, format_location
from ndrpdr.topology.yamlsafe import FieldPath, YamlDocument, dotted

PLACEHOLDER_MACS = frozenset({"00:00:00:00:00:00"})
"""MAC addresses example files carry where the real one goes (CSIT's examples)."""

PLACEHOLDER_PCI = frozenset({"0000:00:00.0"})
"""PCI addresses that stand for "fill this in"."""

_ADDRESS_PLACEHOLDERS = {"mac_address": PLACEHOLDER_MACS, "pci_address": PLACEHOLDER_PCI}
_ANGLE = re.compile(r"<[^<>\n]*>")
_TEMPLATE = re.compile(r"\{\{[^{}\n]*\}\}")


@dataclasses.dataclass(frozen=True)
class Placeholder:
    """One placeholder: the field that holds it, its line and the value as written."""

    where: FieldPath
    line: int
    value: str


class PlaceholderError(TopologyError):
    """A topology file still holds placeholders (``placeholders``: each of them, in file order)."""

    def __init__(self, path: str, placeholders: Sequence[Placeholder]) -> None:
        """The message: a count, then one ``<path>:<line>: <field>: <value>`` line each."""
        self.placeholders = tuple(placeholders)
        count = len(self.placeholders)
        listed = "".join(
            f"\n  {format_location(path, p.line, dotted(p.where))}{p.value!r}"
            for p in self.placeholders
        )
        super().__init__(
            f"{count} placeholder{'' if count == 1 else 's'} to replace with the testbed's own "
            f"value{'' if count == 1 else 's'}:{listed}",
            path=path,
        )


def is_placeholder(field: str | int, value: str) -> bool:
    """Whether ``value``, the value of ``field``, stands for a value still to fill in."""
    text = value.strip()
    if _ANGLE.fullmatch(text) or _TEMPLATE.search(text):
        return True
    return isinstance(field, str) and text.lower() in _ADDRESS_PLACEHOLDERS.get(field, ())


def find_placeholders(document: YamlDocument) -> list[Placeholder]:
    """Every placeholder of ``document``, in file order."""
    return [
        Placeholder(where, document.line(where), value)
        for where, value in _strings(document.data, ())
        if is_placeholder(where[-1] if where else "", value)
    ]


def check_placeholders(document: YamlDocument, *, path: str) -> None:
    """Raise PlaceholderError naming every placeholder of ``document``, if it has any."""
    found = find_placeholders(document)
    if found:
        raise PlaceholderError(path, found)


def _strings(data: Any, where: FieldPath) -> Iterator[tuple[FieldPath, str]]:
    """Each string value under ``data`` with its path (mapping keys are not values)."""
    if isinstance(data, str):
        yield where, data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _strings(value, (*where, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _strings(value, (*where, index))
