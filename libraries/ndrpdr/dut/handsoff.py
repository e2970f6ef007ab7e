"""Keep the DUT node's kernel from forwarding what a user-space data plane forwards.

A user-space data plane (DPDK testpmd or l3fwd on vdevs, OVS's netdev
datapath, VPP on af_packet ports) reads the DUT ports through AF_PACKET /
AF_XDP sockets. The kernel of the DUT namespace must then not forward the
same frames too: ``KernelHandsOff`` turns IPv4 forwarding off and installs
an nftables netdev-ingress drop on the ports (taps run before the ingress
hook, so the data plane still sees every frame) and undoes both
afterwards, re-setting what a stopped user-space application leaves
behind (links down or PROMISC, an XDP program).
"""

from __future__ import annotations

from collections.abc import Sequence

from ndrpdr.dut.nodesteps import NodeSteps

#: The nftables table of the kernel sink in the DUT namespace.
SINK_TABLE = "ndrpdr_dut_sink"


def xdp_off_argv(name: str) -> list[str]:
    """The node command that detaches any XDP program from interface ``name``."""
    return ["ip", "link", "set", "dev", name, "xdp", "off"]


def sink_ruleset(names: Sequence[str]) -> str:
    """The nftables ruleset that drops every frame at netdev ingress of ``names``."""
    lines = [f"table netdev {SINK_TABLE} {{"]
    for index, name in enumerate(names):
        lines.append(
            f'  chain in{index} {{ type filter hook ingress device "{name}" priority 0; '
            "policy accept; counter drop; }"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


class KernelHandsOff:
    """Keep the DUT namespace's kernel from forwarding what a user-space plane forwards."""

    def __init__(self, steps: NodeSteps, names: Sequence[str], *, xdp: bool = False) -> None:
        """``names``: the DUT port interfaces; ``xdp``: also detach XDP programs on restore."""
        self._steps = steps
        self._names = tuple(names)
        self._xdp = xdp
        self._forwarding: str | None = None
        self._sink = False

    def apply(self) -> None:
        """IPv4 forwarding off (remembering its value), links up, the nft ingress drop in place."""
        steps = self._steps
        value = steps.output("read ip_forward", ["sysctl", "-n", "net.ipv4.ip_forward"]).strip()
        self._forwarding = value or "0"
        steps.run("turn kernel forwarding off", ["sysctl", "-qw", "net.ipv4.ip_forward=0"])
        for name in self._names:
            steps.run(f"set {name} up", ["ip", "link", "set", "dev", name, "up"])
        steps.run(
            "remove a stale kernel sink",
            ["nft", "delete", "table", "netdev", SINK_TABLE],
            check=False,
        )
        steps.run(
            "add the kernel sink (nft netdev ingress drop)",
            ["nft", "-f", "-"],
            stdin=sink_ruleset(self._names),
        )
        self._sink = True

    def restore(self, errors: list[str]) -> None:
        """Undo ``apply`` and what a stopped application breaks; failures go to ``errors``."""
        actions: list[tuple[str, list[str]]] = []
        if self._sink:
            actions.append(
                ("remove the kernel sink", ["nft", "delete", "table", "netdev", SINK_TABLE])
            )
        for name in self._names:
            if self._xdp:
                actions.append((f"detach XDP from {name}", xdp_off_argv(name)))
            actions.append(
                (
                    f"set {name} up, promisc off",
                    ["ip", "link", "set", "dev", name, "up", "promisc", "off"],
                )
            )
        if self._forwarding is not None:
            actions.append(
                ("restore ip_forward", ["sysctl", "-qw", f"net.ipv4.ip_forward={self._forwarding}"])
            )
        for step, argv in actions:
            self._steps.undo(errors, step, argv)
        self._sink = False
        self._forwarding = None
