"""Linux kernel DUT: the DUT namespace's own IPv4 forwarding, or a tc cross-connect.

``ip4base``: IPv4 forwarding on, reverse-path filtering off, each port gets
its address, a permanent neighbour entry for its peer (the TG ports drop
ARP, so neighbours are never resolved) and a route for its
``routed_prefix`` via the peer. ``l2xc``: a tc ingress qdisc on each port
with a u32 match-all filter whose mirred action redirects every frame out
of the other port (this kernel has u32 and mirred, not matchall).

``start`` always re-adds the neighbours: a DPDK application that used the
same ports earlier sets them down and up, which drops permanent entries.

Options: ``cpu`` is accepted for symmetry with the user-space drivers and
not used here (the local testbed steers the DUT ports' receive work to the
DUT CPU with RPS).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json

from ndrpdr.access.base import NodeAccess
from ndrpdr.drivers import DriverDescription, option, read_options
from ndrpdr.dut.base import DutDriver, DutTestConfig
from ndrpdr.dut.hostlink import HostLink
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.ports import MAC, check_ports_exist, port_names
from ndrpdr.systemtools import first_line
from ndrpdr.topology.model import Node


@dataclasses.dataclass(frozen=True)
class LinuxOptions:
    """The linux driver's options."""

    cpu: int = option(
        1,
        "CPU the DUT ports' receive work goes to (RPS; local testbed); unset on this "
        "machine: this CPU unless another run holds it, else one no run holds",
        minimum=0,
    )


class LinuxDriver(DutDriver):
    """Kernel forwarding in the DUT's namespace, configured with iproute2, sysctl and tc."""

    driver_name = "linux"
    #: A health check runs seven commands (~30 ms in a local namespace): at most one a second
    #: between trials; a trial that lost every frame (links down, routes gone) forces one.
    health_interval_s = 1.0

    def __init__(self, node: Node, access: NodeAccess) -> None:
        """Check the options; no I/O."""
        self._node = node
        self._steps = NodeSteps(node.key, self.driver_name, access)
        self.options = read_options(LinuxOptions, node.options, self._steps.option_error)
        self.cpu = self.options.cpu
        self._config: DutTestConfig | None = None
        self._applied: DutTestConfig | None = None

    @property
    def node(self) -> str:
        """The node key."""
        return self._node.key

    # -- contract ------------------------------------------------------------------
    def configure(self, config: DutTestConfig) -> None:
        """Check ``config`` (names, addresses, that the ports exist); apply now if running."""
        port_names(self.node, self.driver_name, config)
        self._check_addresses(config)
        check_ports_exist(self._steps, config.ports)
        self._config = config
        if self._applied is not None:
            self._undo(self._applied)
            self._applied = None
            self._apply(config)
            self._applied = config

    def start(self) -> None:
        """Apply the configuration (DutError names the step that failed; undone on failure)."""
        if self._config is None:
            raise self._steps.error("start", "configure() was not called")
        if self._applied is not None:
            self._undo(self._applied)
            self._applied = None
        try:
            self._apply(self._config)
        except BaseException:
            self._undo(self._config)
            raise
        self._applied = self._config

    def health_check(self) -> None:
        """DutError unless links are up and forwarding, routes and neighbours (or tc) in place."""
        config = self._applied
        if config is None:
            raise self._steps.error("health check", "the kernel data plane is not started")
        for port in config.ports:
            self._check_link(port.name or "")
        if config.mode == "l2xc":
            self._check_cross_connect(config)
            return
        forwarding = self._steps.output(
            "health check", ["sysctl", "-n", "net.ipv4.ip_forward"]
        ).strip()
        if forwarding != "1":
            raise self._steps.error("health check", f"net.ipv4.ip_forward is {forwarding}, not 1")
        for port in config.ports:
            name = port.name or ""
            routes = self._json(["ip", "-j", "route", "show", port.routed_prefix, "dev", name])
            if not any(r.get("gateway") == port.peer_ip4 for r in routes):
                raise self._steps.error(
                    "health check", f"no route {port.routed_prefix} via {port.peer_ip4} dev {name}"
                )
            neighbours = self._json(["ip", "-j", "neigh", "show", port.peer_ip4, "dev", name])
            if not any(_has(n.get("state"), "PERMANENT") for n in neighbours):
                raise self._steps.error(
                    "health check",
                    f"neighbour {port.peer_ip4} on {name} is not permanent ({neighbours})",
                )

    def stop(self) -> None:
        """Undo what start did (idempotent): routes, neighbours, addresses, tc, ip_forward=0."""
        config, self._applied = self._applied, None
        if config is not None:
            self._undo(config)

    def telemetry(self) -> dict[str, str]:
        """Links with stats, routes, neighbours, the Ip lines of /proc/net/snmp, nstat, tc."""
        steps = self._steps
        snmp = steps.text(["cat", "/proc/net/snmp"])
        config = self._applied
        state = f"linux mode={config.mode}: running" if config else "linux: stopped"
        out = {
            "state": state,
            "ip_link": steps.text(["ip", "-s", "-j", "link"]),
            "ip_route": steps.text(["ip", "route"]),
            "ip_neigh": steps.text(["ip", "neigh"]),
            "snmp_ip": "\n".join(line for line in snmp.splitlines() if line.startswith("Ip:")),
            "nstat": steps.text(["nstat", "-a", "-s"]),
        }
        shown = config or self._config
        if shown is not None:
            out["tc"] = "\n".join(
                steps.text(["tc", "-s", "filter", "show", "dev", p.name or "", "ingress"])
                for p in shown.ports
            )
        return out

    # -- helpers -------------------------------------------------------------------
    def _check_addresses(self, config: DutTestConfig) -> None:
        for index, port in enumerate(config.ports):
            where = f"ports[{index}] ({port.key})"
            try:
                ipaddress.IPv4Interface(port.ip4_address)
                ipaddress.IPv4Address(port.peer_ip4)
                ipaddress.IPv4Network(port.routed_prefix)
            except ValueError as exc:
                raise self._steps.error("configure", f"{where}: {exc}") from exc
            if not MAC.match(port.peer_mac):
                raise self._steps.error(
                    "configure", f"{where}: peer_mac {port.peer_mac!r} is not a MAC address"
                )

    def _apply(self, config: DutTestConfig) -> None:
        run = self._steps.run
        for port in config.ports:
            run(f"set {port.name} up", ["ip", "link", "set", "dev", port.name or "", "up"])
        if config.mode == "l2xc":
            run("turn kernel forwarding off", ["sysctl", "-qw", "net/ipv4/ip_forward=0"])
            first, second = (p.name or "" for p in config.ports)
            for src, dst in ((first, second), (second, first)):
                run(
                    f"remove stale tc on {src}",
                    ["tc", "qdisc", "del", "dev", src, "ingress"],
                    check=False,
                )
                run(
                    f"add the ingress qdisc on {src}", ["tc", "qdisc", "add", "dev", src, "ingress"]
                )
                run(f"cross-connect {src} -> {dst}", [
                    "tc", "filter", "add", "dev", src, "ingress", "protocol", "all", "prio", "1",
                    "u32", "match", "u32", "0", "0",
                    "action", "mirred", "egress", "redirect", "dev", dst,
                ])  # fmt: skip
            return
        sysctls = [
            "net/ipv4/ip_forward=1",
            "net/ipv4/conf/all/rp_filter=0",
            "net/ipv4/conf/default/rp_filter=0",
        ]
        sysctls += [f"net/ipv4/conf/{p.name}/rp_filter=0" for p in config.ports]
        run("turn kernel forwarding on", ["sysctl", "-qw", *sysctls])
        for port in config.ports:
            name = port.name or ""
            run(f"address {name}", ["ip", "addr", "replace", port.ip4_address, "dev", name])
            run(f"neighbour {port.peer_ip4} on {name}", [
                "ip", "neigh", "replace", port.peer_ip4, "lladdr", port.peer_mac, "dev", name,
                "nud", "permanent",
            ])  # fmt: skip
            run(f"route {port.routed_prefix} via {port.peer_ip4}", [
                "ip", "route", "replace", port.routed_prefix, "via", port.peer_ip4, "dev", name,
            ])  # fmt: skip

    def _undo(self, config: DutTestConfig) -> None:
        """Remove what ``_apply`` added; "not there" is fine, an unreachable node is not."""
        run = self._steps.run
        for port in config.ports:
            name = port.name or ""
            run("remove tc", ["tc", "qdisc", "del", "dev", name, "ingress"], check=False)
            if config.mode == "ip4base":
                run(
                    "remove route",
                    ["ip", "route", "del", port.routed_prefix, "via", port.peer_ip4, "dev", name],
                    check=False,
                )
                run(
                    "remove neighbour",
                    ["ip", "neigh", "del", port.peer_ip4, "dev", name],
                    check=False,
                )
                run(
                    "remove address",
                    ["ip", "addr", "del", port.ip4_address, "dev", name],
                    check=False,
                )
        run("turn kernel forwarding off", ["sysctl", "-qw", "net/ipv4/ip_forward=0"], check=False)

    def _json(self, argv: list[str]) -> list[dict[str, object]]:
        text = self._steps.output("health check", argv).strip()
        try:
            value = json.loads(text or "[]")
        except json.JSONDecodeError as exc:
            raise self._steps.error("health check", f"{' '.join(argv)}: bad JSON: {exc}") from exc
        return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []

    def _check_link(self, name: str) -> None:
        links = self._json(["ip", "-j", "link", "show", "dev", name])
        fault = HostLink.from_entry(links[0]).fault() if links else "is gone"
        if fault is not None:
            raise self._steps.error("health check", f"link {name} {fault}")

    def _check_cross_connect(self, config: DutTestConfig) -> None:
        first, second = (p.name or "" for p in config.ports)
        for src, dst in ((first, second), (second, first)):
            text = self._steps.output(
                "health check", ["tc", "-j", "filter", "show", "dev", src, "ingress"]
            )
            if f'"to_dev":"{dst}"' not in text.replace(" ", ""):
                raise self._steps.error(
                    "health check", f"no tc redirect {src} -> {dst} (tc shows {text.strip()})"
                )


def _has(value: object, item: str) -> bool:
    """True when ``value`` (from JSON) is a list holding ``item``."""
    return isinstance(value, list) and item in value


def kernel_version(node: Node, access: NodeAccess) -> str | None:
    """``Linux <release>`` (``uname -r``): the kernel is what forwards (the version probe)."""
    release = first_line(access, ["uname", "-r"])
    return None if release is None else f"Linux {release}"


DESCRIPTION = DriverDescription(
    name="linux",
    role="DUT",
    summary="the Linux kernel's own IPv4 forwarding (ip4base) or a tc cross-connect (l2xc)",
    options=LinuxOptions,
    factory=LinuxDriver,
    access=("netns", "ssh", "labbox"),
    port_driver=lambda node: "kernel",
    version=kernel_version,
)
