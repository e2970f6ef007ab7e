"""Are a VPP's ports still able to forward? Host links, VPP's interface state, a wedged TX ring.

VPP's own view of an af_packet port stays "up" when the Linux interface
under it goes down, and after such a link flaps VPP's af_packet TX ring can
stay wedged: every frame VPP sends on it counts as ``tx frame not ready``
in ``show errors`` and never leaves (every trial then loses one
direction: 50 % on a bidirectional test), while VPP's own ``tx packets``
still grow. ``PortHealth.check`` reads, in one command on the node, the
host links (``ip -j -s link show``: flags, operstate, the kernel's
tx_packets), ``show interface`` (admin state), ``show hardware-interfaces
brief`` (link state) and ``show errors``, and names the first port at
fault: which node, which interface, which state, what to do.

The wedge rule: between two checks a port's ``tx frame not ready`` grew by
at least ``WEDGE_MIN_FRAMES`` while its host link sent fewer than
``WEDGE_TX_SHARE`` of that. An overloaded ring also counts ``tx frame not
ready`` (VPP offers faster than the kernel takes), but the kernel keeps
sending from it at its own rate, a large share of what VPP offers; a
wedged ring sends nothing at all.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import shlex
from collections.abc import Callable, Mapping, Sequence

from ndrpdr.access.base import CommandTimeoutError
from ndrpdr.dut.base import DutError, DutPort
from ndrpdr.dut.hostlink import HostLink, parse_host_link
from ndrpdr.dut.nodesteps import NodeSteps

#: ``tx frame not ready`` growth below which a port is not judged [frames].
WEDGE_MIN_FRAMES = 100
#: A ring that sent less than this share of its ``tx frame not ready`` growth is wedged.
WEDGE_TX_SHARE = 0.01
#: Time limit of the whole check on the node [s] (VPP answers in ~10 ms; seen alive just before).
CHECK_TIMEOUT_S = 10.0
#: The error VPP's af_packet device counts for a frame its TX ring had no slot for.
NOT_READY = "tx frame not ready"

_SECTION = "=== ndrpdr section ==="
_VPP_COMMANDS = ("show interface", "show hardware-interfaces brief", "show errors")
_STATE_LINE = re.compile(r"^(\S+)\s+\d+\s+(up|down)\s", re.MULTILINE)
_ERROR_LINE = re.compile(r"^\s*(\d+)\s+(\S+)\s+(.*?)\s+\S+\s*$", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """What one check read: host links, VPP admin and link states, ``tx frame not ready``."""

    hosts: Mapping[str, HostLink | None]
    admin: Mapping[str, str]
    link: Mapping[str, str]
    not_ready: Mapping[str, int]


@dataclasses.dataclass(frozen=True)
class Port:
    """One test port: VPP's name for it and the Linux interface under it (None: a NIC)."""

    vpp: str
    host: str | None


def parse_states(text: str) -> dict[str, str]:
    """Interface name -> up/down from ``show interface`` or ``show hardware-interfaces``."""
    return {m.group(1): m.group(2) for m in _STATE_LINE.finditer(text)}


def parse_not_ready(text: str) -> dict[str, int]:
    """``tx frame not ready`` counts of ``show errors`` by node (``host-X-tx``)."""
    counts: dict[str, int] = {}
    for match in _ERROR_LINE.finditer(text):
        count, node, reason = match.groups()
        if reason == NOT_READY:
            counts[node] = counts.get(node, 0) + int(count)
    return counts


def diagnose(
    node: str, ports: Sequence[Port], before: Snapshot | None, now: Snapshot
) -> str | None:
    """What is wrong with the first faulty port of ``node`` (None: nothing seen)."""
    for port in ports:
        on = f" (on host link {port.host})" if port.host is not None else ""
        if now.admin.get(port.vpp) == "down":
            return (
                f"VPP interface {port.vpp}{on} is admin down (show interface): set interface "
                f"state {port.vpp} up, and check what set it down"
            )
        if port.host is not None and port.host in now.hosts:
            host = now.hosts[port.host]
            if host is None:
                return f"host link {port.host} under VPP's {port.vpp} is gone from {node}"
            fault = host.fault()
            if fault is not None:
                return (
                    f"host link {port.host} under VPP's {port.vpp} {fault}; VPP itself says "
                    f"link {now.link.get(port.vpp, '?')}: bring the link up (ip link set "
                    f"{port.host} up, and its peer) and check what took it down"
                )
        if now.link.get(port.vpp) == "down":
            return (
                f"VPP interface {port.vpp}{on} has its link down (show hardware-interfaces): "
                "check the link, the NIC and its peer"
            )
        host = now.hosts.get(port.host) if port.host is not None else None
        if host is not None and before is not None:
            wedged = _wedged(port, host, before, now)
            if wedged is not None:
                return wedged
    return None


def _wedged(port: Port, host: HostLink, before: Snapshot, now: Snapshot) -> str | None:
    tx_node = f"{port.vpp}-tx"
    grew = now.not_ready.get(tx_node, 0) - before.not_ready.get(tx_node, 0)
    previous = before.hosts.get(str(port.host))
    if previous is None or grew < WEDGE_MIN_FRAMES:
        return None
    sent = host.tx_packets - previous.tx_packets
    if sent < 0 or sent >= WEDGE_TX_SHARE * grew:  # negative: the counters were reset
        return None
    return (
        f"VPP's af_packet TX ring of {port.vpp} (host link {port.host}) is wedged: "
        f"`{NOT_READY}` ({tx_node} in show errors) grew by {grew} since the last check while "
        f"{port.host} sent {sent} frames (its tx_packets): frames VPP sends there never leave "
        f"(a TX ring stays stuck after its host link flapped); re-create the host interface "
        f"(delete host-interface name {port.host}, create it again; the next test does) or "
        "restart VPP"
    )


class PortHealth:
    """The health of one VPP's test ports across the checks of a test (see the module doc)."""

    def __init__(
        self,
        steps: NodeSteps,
        vppctl_argv: Callable[[str], list[str]],
        names: Sequence[str] = (),
        ports: Sequence[DutPort] = (),
        *,
        on_linux: bool = False,
    ) -> None:
        """VPP's ``names`` of the test's ``ports``; ``on_linux``: each sits on the Linux
        interface ``port.name`` (af_packet, af_xdp, DPDK vdevs), else on a NIC VPP owns (or
        a memif: a port with a ``memif_socket`` has no Linux interface under it).
        ``vppctl_argv(command)``: the argv that runs one CLI command on this VPP.
        """
        self._steps = steps
        self._ports = tuple(
            Port(name, port.name if on_linux and port.memif_socket is None else None)
            for name, port in zip(names, ports, strict=True)
        )
        self._vppctl_argv = vppctl_argv
        self._last: Snapshot | None = None

    def check(self) -> None:
        """DutError naming the node, the port, its state and what to do, if a port is at fault."""
        if not self._ports:
            return
        now = self._read()
        if now is None:
            return
        before, self._last = self._last, now
        found = diagnose(self._steps.node, self._ports, before, now)
        if found is not None:
            raise self._steps.error("health check", found)

    def _read(self) -> Snapshot | None:
        """One command on the node reads it all (None: its output was not understood)."""
        hosts = [p.host for p in self._ports if p.host is not None]
        parts = [shlex.join(["ip", "-j", "-s", "link", "show", "dev", h]) + " 2>&1" for h in hosts]
        parts += [shlex.join(self._vppctl_argv(c)) + " 2>/dev/null" for c in _VPP_COMMANDS]
        script = "; ".join(f"printf '\\n%s\\n' '{_SECTION}'; {p}" for p in parts)
        try:
            result = self._steps.run(
                "health check", ["sh", "-c", script], timeout_s=CHECK_TIMEOUT_S, check=False
            )
        except DutError as exc:
            if not isinstance(exc.__cause__, CommandTimeoutError):
                raise
            raise self._steps.error(
                "health check",
                f"VPP did not answer within {CHECK_TIMEOUT_S:g} s ({', '.join(_VPP_COMMANDS)}; "
                f"host links {', '.join(hosts) or 'none'}): it is alive but hung, or its node "
                "is starved",
            ) from exc
        sections = result.stdout.split(f"\n{_SECTION}\n")[1:]
        if len(sections) != len(parts):
            return None
        links, (interfaces, hardware, errors) = sections[: len(hosts)], sections[len(hosts) :]
        read: dict[str, HostLink | None] = {}
        for host, text in zip(hosts, links, strict=True):
            with contextlib.suppress(ValueError):  # not understood: not judged
                read[host] = parse_host_link(text)
        return Snapshot(
            read,
            parse_states(interfaces),
            parse_states(hardware),
            parse_not_ready(errors),
        )
