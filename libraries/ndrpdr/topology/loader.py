"""Topology files (YAML) -> validated, typed ``Topology`` objects.

Four steps, each stopping at the first problem in file order:

1. ``yamlsafe`` reads the file safely and remembers the line of every field;
2. ``placeholders`` lists, in one message, every value still to fill in
   (``<...>`` in a copied example, an unrendered ``{{ name }}``, an
   all-zero MAC or PCI address);
3. the JSON Schema (``ndrpdr.topology.schema``: a base plus the drivers'
   descriptions; written to ``schemas/topology.schema.json`` for editors)
   checks the shape, including each driver's options; its errors are
   rewritten into plain sentences;
4. the checks a schema cannot express: node keys against types, drivers
   against access (from the drivers' descriptions), each driver's own
   option rules, links with exactly two ends (two TG ports may be cabled
   to each other), unique addresses and names.

Every problem is a ``TopologyError`` reading
``<path>:<line>: <field.path>: <what is wrong>``; placeholders are one
``PlaceholderError`` with a line like that for each.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ndrpdr.drivers import DriverDescription, describe, read_options
from ndrpdr.drivers.description import KIND_NAMES
from ndrpdr.topology.builtin import builtin
from ndrpdr.topology.errors import TopologyError
from ndrpdr.topology.memif import memif_link_problem
from ndrpdr.topology.model import (
    Access,
    Interface,
    LabboxAccess,
    Link,
    LinkEnd,
    LocalAccess,
    NetnsAccess,
    Node,
    NodeType,
    SshAccess,
    Topology,
)
from ndrpdr.topology.placeholders import check_placeholders
from ndrpdr.topology.schemaerrors import describe_value, first_schema_problem
from ndrpdr.topology.yamlsafe import FieldPath, YamlDocument, dotted, load_yaml
from ndrpdr.units import UnitError, parse_bitrate

CSIT_SSH_FIELDS = ("host", "port", "username", "password", "priv_key")
"""CSIT's flat node fields that mean SSH access."""

NODE_FIELDS = frozenset({"type", "driver", "access", "options", "interfaces", *CSIT_SSH_FIELDS})
"""Node fields the loader consumes; every other node field goes to ``Node.extra``."""

_TYPO_CANDIDATES = NODE_FIELDS | {"subtype"}
# The schema's patterns end in "$", which also matches before a final newline;
# names that reach OS commands are checked again with fullmatch.
_IFACE_NAME = re.compile(r"[^/\s]{1,15}")
_NAMESPACE = re.compile(r"[a-z0-9-]{1,12}")


def load_topology(path: str | os.PathLike[str]) -> Topology:
    """Load and validate the topology file ``path``.

    Raises TopologyError (message ``<path>:<line>: <field>: <problem>``,
    with ``path`` as given) if the file is missing, unreadable, not safe
    YAML or not a valid topology. ``topologies/sim.yaml`` and
    ``topologies/sim-3n.yaml`` load the package's own copy where no such
    file exists (``topology.builtin``): the default testbed is found from
    any directory.
    """
    shown = os.fspath(path)
    document = load_yaml(builtin(shown) or shown, error=TopologyError)
    return topology_from_document(document, path=shown)


def validate_file(path: str | os.PathLike[str]) -> None:
    """Raise TopologyError unless ``path`` is a valid topology file."""
    load_topology(path)


def topology_from_document(document: YamlDocument, *, path: str) -> Topology:
    """Validate already parsed YAML and build the Topology (``path`` names it in messages)."""
    checker = _Checker(document, path)
    if not isinstance(document.data, dict):
        found = describe_value(document.data)
        raise checker.fail((), f"a topology is a mapping with 'nodes:' at the top, not {found}")
    check_placeholders(document, path=path)
    checker.check_schema()
    return checker.build()


class _Checker:
    """Validation and building of one parsed topology file."""

    def __init__(self, document: YamlDocument, path: str) -> None:
        self.doc = document
        self.path = path

    def fail(self, where: FieldPath, problem: str) -> TopologyError:
        """An error about field ``where``, on its line (or its nearest ancestor's)."""
        line = self.doc.line(where)
        return TopologyError(problem, path=self.path, line=line, field=dotted(where))

    # -- step 2: the schema ------------------------------------------------------
    def check_schema(self) -> None:
        problem = first_schema_problem(self.doc)
        if problem is not None:
            raise self.fail(*problem)

    # -- step 3: semantic checks and building -----------------------------------
    def build(self) -> Topology:
        data = self.doc.data
        specs: dict[str, dict[str, Any]] = data["nodes"]
        for key, spec in specs.items():
            self._check_node_typos(key, spec)
        nodes = {key: self._node(key, spec) for key, spec in specs.items()}
        if "TG" not in nodes:
            raise self.fail(("nodes",), "no TG node: add a node 'TG' with 'type: TG'")
        if not any(node.type == "DUT" for node in nodes.values()):
            raise self.fail(("nodes",), "no DUT node: add a node 'DUT1' with 'type: DUT'")
        self._check_peers(nodes)
        self._check_unique_names(nodes)
        links = self._links(nodes)
        if not any(iface.link for iface in nodes["TG"].interfaces.values()):
            raise self.fail(
                ("nodes", "TG", "interfaces"),
                "the TG has no linked interface: give its ports a 'link' shared with a DUT port",
            )
        return Topology(
            nodes=nodes,
            links=links,
            source=Path(self.path),
            metadata=dict(data.get("metadata") or {}),
        )

    def _check_peers(self, nodes: Mapping[str, Node]) -> None:
        """Drivers that work only with certain drivers of the other role (sim with sim)."""
        for node in nodes.values():
            peers = describe(node.type, node.driver).peers
            if peers is None:
                continue
            for other in nodes.values():
                if other.type != node.type and other.driver not in peers:
                    raise self.fail(
                        ("nodes", other.key, "driver"),
                        f"{other.driver!r} cannot run with {node.key}'s driver {node.driver} "
                        f"(it works with {other.type} driver(s) {', '.join(peers)})",
                    )

    def _check_node_typos(self, key: str, spec: Mapping[str, Any]) -> None:
        for field in spec:
            if field in _TYPO_CANDIDATES:
                continue
            close = [c for c in _TYPO_CANDIDATES if c.lower() == field.lower()]
            close = close or difflib.get_close_matches(
                field, sorted(_TYPO_CANDIDATES), n=1, cutoff=0.8
            )
            if close:
                raise self.fail(
                    ("nodes", key, field), f"unknown field {field!r} (did you mean {close[0]!r}?)"
                )

    def _node(self, key: str, spec: dict[str, Any]) -> Node:
        where: FieldPath = ("nodes", key)
        node_type: NodeType = spec["type"]
        driver = self._driver(where, node_type, spec)
        description = describe(node_type, driver)  # the schema admits known drivers only
        access = self._access(where, description, spec)
        if isinstance(access, NetnsAccess) and not _NAMESPACE.fullmatch(access.namespace):
            raise self.fail(
                (*where, "access", "namespace"),
                f"{access.namespace!r} is not a namespace name (1 to 12 characters: a-z, 0-9, '-')",
            )
        self._check_access(where, description, access, spec)
        options = dict(spec.get("options") or {})
        self._check_options(where, description, options)
        interfaces = {
            port: self._interface((*where, "interfaces", port), port, iface)
            for port, iface in spec["interfaces"].items()
        }
        if isinstance(access, NetnsAccess | LabboxAccess):
            for port, iface in interfaces.items():
                if iface.name is None:
                    raise self.fail(
                        (*where, "interfaces", port),
                        f"missing 'name': with {access.kind} access every interface needs its "
                        "interface name inside the node's namespace (e.g. name: tg-if1)",
                    )
        return Node(
            key=key,
            type=node_type,
            driver=driver,
            access=access,
            interfaces=interfaces,
            options=options,
            extra={k: v for k, v in spec.items() if k not in NODE_FIELDS},
        )

    def _driver(self, where: FieldPath, node_type: NodeType, spec: Mapping[str, Any]) -> str:
        driver = spec.get("driver")
        if driver is not None:
            return str(driver)
        if node_type == "DUT":
            return "vpp"  # CSIT labs run VPP
        subtype = spec.get("subtype")
        if subtype == "TREX":
            return "trex"
        because = f" (subtype {subtype!r} has no driver)" if subtype is not None else ""
        raise self.fail(
            where, f"no driver{because}: add 'driver: sim', 'driver: local' or 'driver: trex'"
        )

    def _access(
        self, where: FieldPath, description: DriverDescription, spec: Mapping[str, Any]
    ) -> Access:
        flat = [field for field in CSIT_SSH_FIELDS if field in spec]
        given = spec.get("access")
        if given is not None and flat:
            raise self.fail(
                (*where, flat[0]),
                f"both 'access' and CSIT's SSH field(s) {', '.join(flat)}: give one or the other",
            )
        if given is not None:
            return _access_from_mapping(given)
        if flat:
            if "host" not in spec:
                raise self.fail(
                    where,
                    f"CSIT SSH field(s) {', '.join(flat)} given without 'host': add 'host:'",
                )
            return SshAccess(
                host=spec["host"],
                port=int(spec.get("port", 22)),
                username=spec.get("username", "root"),
                password=spec.get("password"),
                priv_key=spec.get("priv_key"),
            )
        if description.default_access == "local":
            return LocalAccess()
        csit = " (or CSIT's host, port and username)" if "ssh" in description.access else ""
        raise self.fail(
            where,
            f"no access given: driver {description.name} needs "
            f"{_access_choices(description)}{csit}",
        )

    def _check_access(
        self,
        where: FieldPath,
        description: DriverDescription,
        access: Access,
        spec: Mapping[str, Any],
    ) -> None:
        if access.kind in description.access:
            return
        at: FieldPath = (*where, "access") if "access" in spec else where
        if "access" not in spec and "host" in spec:
            at = (*where, "host")
        raise self.fail(
            at,
            f"driver {description.name} does not run with access kind {access.kind}: use "
            f"{_access_choices(description)}",
        )

    def _check_options(
        self, where: FieldPath, description: DriverDescription, options: Mapping[str, Any]
    ) -> None:
        """The driver's own rules on its options (types and limits were the schema's)."""

        def error(field: str, detail: str) -> TopologyError:
            at: FieldPath = (*where, "options", field)
            if field not in options:
                at = (*where, "options")
            return self.fail(at, f"{detail} (driver {description.name})")

        read_options(description.options, options, error)

    def _interface(self, where: FieldPath, key: str, spec: Mapping[str, Any]) -> Interface:
        speed_bps = None
        if "speed" in spec:
            try:  # the schema admits only well-formed speeds; what is left is a zero speed
                speed_bps = parse_bitrate(spec["speed"])
            except UnitError:
                raise self.fail(
                    (*where, "speed"), f"must be greater than 0, got {spec['speed']!r}"
                ) from None
        name = spec.get("name")
        if name is not None and not _IFACE_NAME.fullmatch(name):
            raise self.fail(
                (*where, "name"),
                f"{name!r} is not an interface name (1 to 15 characters, no '/', no whitespace)",
            )
        ip4 = spec.get("ip4_address")
        if ip4 is not None:
            try:
                ipaddress.IPv4Interface(ip4)
            except ValueError:
                raise self.fail(
                    (*where, "ip4_address"), f"{ip4!r} is not an IPv4 address"
                ) from None
        return Interface(
            key=key,
            name=name,
            mac_address=spec.get("mac_address"),
            pci_address=spec.get("pci_address"),
            link=spec.get("link"),
            model=spec.get("model"),
            driver=spec.get("driver"),
            ip4_address=ip4,
            speed_bps=speed_bps,
            vlan=None if spec.get("vlan") is None else int(spec["vlan"]),
            memif_socket=spec.get("memif_socket"),
        )

    def _check_unique_names(self, nodes: Mapping[str, Node]) -> None:
        """MAC addresses in the topology, namespaces, and names and PCI addresses per node."""
        self._unique(
            "MAC address",
            (
                (("nodes", n.key, "interfaces", i.key, "mac_address"), i.mac_address.lower())
                for n in nodes.values()
                for i in n.interfaces.values()
                if i.mac_address
            ),
        )
        self._unique(
            "namespace",
            (
                (("nodes", n.key, "access", "namespace"), n.access.namespace)
                for n in nodes.values()
                if isinstance(n.access, NetnsAccess)
            ),
        )
        for node in nodes.values():
            for field, normal in (("name", str), ("pci_address", str.lower)):
                self._unique(
                    f"interface {field}",
                    (
                        (("nodes", node.key, "interfaces", i.key, field), _apply(normal, value))
                        for i in node.interfaces.values()
                        if (value := getattr(i, field)) is not None
                    ),
                )

    def _unique(self, what: str, items: Iterable[tuple[FieldPath, str]]) -> None:
        seen: dict[str, FieldPath] = {}
        for where, value in items:
            if value in seen:
                raise self.fail(
                    where, f"{what} {value!r} is also used by {dotted(seen[value][:-1])}"
                )
            seen[value] = where

    def _links(self, nodes: Mapping[str, Node]) -> dict[str, Link]:
        ends: dict[str, list[LinkEnd]] = {}
        for node in nodes.values():
            for iface in node.interfaces.values():
                if iface.link is not None:
                    ends.setdefault(iface.link, []).append(LinkEnd(node.key, iface.key))
        links: dict[str, Link] = {}
        for name, found in ends.items():
            named = [f"nodes.{e.node}.interfaces.{e.interface}" for e in found]
            last = ("nodes", found[-1].node, "interfaces", found[-1].interface, "link")
            if len(found) == 1:
                raise self.fail(
                    last,
                    f"link {name!r} has only one end ({named[0]}); a link joins exactly two "
                    "interfaces on two nodes",
                )
            if len(found) > 2:
                raise self.fail(
                    ("nodes", found[2].node, "interfaces", found[2].interface, "link"),
                    f"link {name!r} is used by {len(found)} interfaces ({', '.join(named)}); "
                    "a link joins exactly two",
                )
            if found[0].node == found[1].node and nodes[found[0].node].type != "TG":
                raise self.fail(
                    last,
                    f"link {name!r} joins two interfaces of the same node ({named[0]} and "
                    f"{named[1]}); only the TG may have two ports cabled to each other",
                )
            first, second = (nodes[e.node].interface(e.interface) for e in found)
            problem = memif_link_problem(name, first, second)
            if problem is not None:
                raise self.fail(
                    ("nodes", found[1].node, "interfaces", found[1].interface, problem[0]),
                    problem[1],
                )
            links[name] = Link(name=name, ends=(found[0], found[1]))
        return links


_ACCESS_EXAMPLES = {
    "local": "access: {kind: local}",
    "netns": "access: {kind: netns, namespace: <name>}",
    "ssh": "access: {kind: ssh, host: <host>}",
    "labbox": "access: {kind: labbox}",
}


def _access_choices(description: DriverDescription) -> str:
    """What access to write for a driver: "'access: {...}' (local testbed) or ..."."""
    choices = [f"'{_ACCESS_EXAMPLES[kind]}' ({KIND_NAMES[kind]})" for kind in description.access]
    text = ", ".join(choices[:-1]) + " or " + choices[-1] if len(choices) > 1 else choices[0]
    if description.default_access is not None:
        text += " or leave access out"
    return text


def _access_from_mapping(spec: Mapping[str, Any]) -> Access:
    """Our ``access:`` mapping (already checked by the schema) -> the access object."""
    kind = spec["kind"]
    if kind == "local":
        return LocalAccess(sudo=spec.get("sudo", False))
    if kind == "netns":
        return NetnsAccess(namespace=spec["namespace"])
    if kind == "labbox":
        return LabboxAccess()
    fields = {k: v for k, v in spec.items() if k != "kind"}
    for name in ("connect_timeout_s", "keepalive_s"):
        if name in fields:
            fields[name] = float(fields[name])
    if "port" in fields:
        fields["port"] = int(fields["port"])  # the schema admits 22.0 as an integer
    return SshAccess(**fields)


def _apply(normal: Callable[[str], str], value: Any) -> str:
    return normal(str(value))
