"""The ``ports`` and ``macs`` steps: the interfaces a file names exist on the node, with its MACs.

A port is looked up by its PCI address when the file gives one (the
device in ``/sys/bus/pci/devices``; its MAC from its kernel interface,
none while a user-space driver such as vfio-pci holds it), else by its
interface ``name`` (``ip -o link show dev NAME``). Only the ports on the
traffic path are checked (the ones a run uses: ``ndrpdr validate --plan``
shows them); memif ports are made by the run.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from ndrpdr.access.base import NodeAccess
from ndrpdr.labcheck.outcome import Outcome, failed, passed
from ndrpdr.topology.model import Interface, Node
from ndrpdr.topology.path import TrafficPath

PCI_DEVICES = "/sys/bus/pci/devices"
_LINK_ETHER = re.compile(r"link/ether ([0-9a-fA-F:]{17})")


@dataclasses.dataclass(frozen=True)
class PortFacts:
    """What the node has for one port of the file: ``found`` or not, its ``mac`` when the
    node shows one, and a ``note`` (its driver, its interface, why no MAC)."""

    key: str
    where: str
    found: bool
    mac: str | None = None
    note: str = ""


def path_ports(path: TrafficPath) -> dict[str, list[str]]:
    """{node key: the keys of its ports on ``path``}, in the order traffic crosses them."""
    ports: dict[str, list[str]] = {}
    for link in path.links:
        for end in (link.tx, link.rx):
            ports.setdefault(end.node, []).append(end.interface)
    return ports


def checked_ports(node: Node, keys: Sequence[str]) -> list[Interface]:
    """The node's ports ``keys`` (those on the path) that name a PCI address or an
    interface; not memif ports (their sockets are made by the run)."""
    ports = [node.interfaces[key] for key in keys]
    return [
        port
        for port in ports
        if not port.is_memif and (port.pci_address is not None or port.name is not None)
    ]


def _pci_facts(access: NodeAccess, port: Interface, address: str) -> PortFacts:
    device = f"{PCI_DEVICES}/{address}"
    if access.run(["readlink", "-e", device], check=False).exit_code != 0:
        return PortFacts(port.key, address, found=False, note="no such PCI device")
    names = access.run(["ls", f"{device}/net"], check=False)
    netdevs = names.stdout.split() if names.exit_code == 0 else []
    if netdevs:
        mac = access.run(["cat", f"/sys/class/net/{netdevs[0]}/address"], check=False)
        found = mac.stdout.strip().lower() if mac.exit_code == 0 else None
        return PortFacts(port.key, address, found=True, mac=found or None, note=netdevs[0])
    driver = access.run(["readlink", f"{device}/driver"], check=False)
    bound = driver.stdout.strip().rsplit("/", 1)[-1] if driver.exit_code == 0 else ""
    note = f"bound to {bound}" if bound else "bound to no driver"
    return PortFacts(port.key, address, found=True, note=note)


def _name_facts(access: NodeAccess, port: Interface, name: str) -> PortFacts:
    result = access.run(["ip", "-o", "link", "show", "dev", name], check=False)
    if result.exit_code != 0:
        return PortFacts(port.key, name, found=False, note="no such interface")
    mac = _LINK_ETHER.search(result.stdout)
    return PortFacts(port.key, name, found=True, mac=None if mac is None else mac.group(1).lower())


def read_ports(node: Node, access: NodeAccess, keys: Sequence[str]) -> list[PortFacts]:
    """What the node has for each of its ports ``keys`` that ``checked_ports`` keeps."""
    facts = []
    for port in checked_ports(node, keys):
        if port.pci_address is not None:
            facts.append(_pci_facts(access, port, port.pci_address))
        else:
            assert port.name is not None
            facts.append(_name_facts(access, port, port.name))
    return facts


def ports_outcome(node: Node, facts: list[PortFacts]) -> Outcome:
    """``ports <node>``: every port the file names is there."""
    step = f"ports {node.key}"
    if not facts:
        return passed(
            step, "nothing to check: no port on the path names an interface or PCI address"
        )
    missing = [f for f in facts if not f.found]
    if missing:
        what = "; ".join(f"{f.key} ({f.where}): {f.note}" for f in missing)
        first = missing[0].key
        field = "pci_address" if node.interfaces[first].pci_address is not None else "name"
        return failed(
            step,
            what,
            f"set nodes.{node.key}.interfaces.{first}.{field} to a port the node has "
            "(lspci -D and ip -br link list them)",
        )
    return passed(
        step, ", ".join(f"{f.key} {f.where}" + (f" ({f.note})" if f.note else "") for f in facts)
    )


def macs_outcome(node: Node, facts: list[PortFacts]) -> Outcome:
    """``macs <node>``: each found port's MAC is the file's ``mac_address``."""
    step = f"macs {node.key}"
    wrong, same = [], []
    unread: dict[str, list[str]] = {}  # why: the ports
    for fact in facts:
        expected = node.interfaces[fact.key].mac_address
        if expected is None:
            continue
        if fact.mac is None:
            why = f"{fact.note}: no kernel interface shows the MAC" if fact.note else "no MAC shown"
            unread.setdefault(why, []).append(fact.key)
        elif fact.mac != expected.lower():
            wrong.append((fact, expected))
        else:
            same.append(fact.key)
    if wrong:
        fact, expected = wrong[0]
        what = "; ".join(f"{f.key} ({f.where}) has {f.mac}, the file says {e}" for f, e in wrong)
        return failed(
            step,
            what,
            f"set nodes.{node.key}.interfaces.{fact.key}.mac_address to {fact.mac} "
            "(or correct the port's pci_address / name if it is the wrong port)",
        )
    if not same and not unread:
        return passed(step, "nothing to check: no port with a MAC in the file to read")
    parts = [f"{', '.join(same)} as in the file"] if same else []
    parts += [f"{', '.join(keys)} not read ({why})" for why, keys in unread.items()]
    return passed(step, "; ".join(parts))
