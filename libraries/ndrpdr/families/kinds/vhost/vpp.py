"""VPP set-up of the vhost-user families: two vhost-user interfaces and a guest between them.

The DUT's VPP creates two vhost-user interfaces as FD.io CSIT's ``Configure
vhost interfaces`` does (``VhostUser.vpp_create_vhost_user_interface``):
VPP is the client (no ``server``: the guest's side listens, as CSIT's QEMU
does with ``server=on``), GSO off, no packed ring or event-idx (CSIT's
defaults), on the sockets ``{guest_dir}/sock-1-1`` and ``sock-1-2``
(CSIT's ``/run/vpp/sock-<vm>-<n>``; the driver puts the guest's run
directory for ``{guest_dir}``). VPP names them ``VirtualEthernet0/0/0``
and ``/1`` (a fresh VPP per test: ``FreshVpp``). The ring size, 1024, is
the guest's (CSIT's ``perf_qemu_qsz``: QEMU's ``rx_queue_size`` and
``tx_queue_size``; the stand-in's ``queue_size``): vhost-user takes the
driver's.

The DUT forwards port 1 <-> vhost 1 and vhost 2 <-> port 2 (CSIT's
keywords):

- ``l2xc`` (``Initialize L2 xconnect with Vhost-User``): cross-connects,
  both ways;
- ``l2bd`` (``Initialize L2 bridge domains for multiple chains with
  Vhost-User``): bridge domain 1 = {port 1, vhost 1}, 2 = {vhost 2,
  port 2}, learning on (VPP's default);
- ``ip4`` (``Initialize IPv4 forwarding with vhost in 2-node circular
  topology``): VRF 101 = {port 1, vhost 1}, VRF 102 = {vhost 2, port 2};
  vhost 1 is 1.1.1.2/30, vhost 2 1.1.2.2/30; in VRF 101 the far side's
  prefix goes via the guest's 1.1.1.1, in VRF 102 the near side's via
  1.1.2.1 (neighbours resolved by ARP, as CSIT's ``noarp`` guest does).

The guest (``ndrpdr.dut.guest``) is CSIT's ``vnf``: ``testpmd_io`` (testpmd,
io forwarding) for the plain ids, ``vppl2xc`` (a VPP cross-connecting its
two virtio ports, CSIT's ``vppl2xc_2vhostvr1024.exec``) and ``vppip4noarp``
(a VPP routing between them, ``vppip4noarp_2vhostvr1024.exec``: 1.1.1.1/30
and 1.1.2.1/30, each side's prefix via the DUT's vhost address).
"""

from __future__ import annotations

import dataclasses

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.guest.plan import VHOST_INTERFACES
from ndrpdr.families.build import l2_pair_commands
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.families.vppsetup import FreshVpp

#: The two vhost-user sockets (``{guest_dir}``: the guest's run directory) and VPP's names.
SOCKETS = ("{guest_dir}/sock-1-1", "{guest_dir}/sock-1-2")
VHOSTS = VHOST_INTERFACES
#: ip4: CSIT's VRFs, the DUT's vhost addresses and the guest's (the next hops).
VRFS = (101, 102)
DUT_VHOST_IP4 = ("1.1.1.2/30", "1.1.2.2/30")
GUEST_IP4 = ("1.1.1.1", "1.1.2.1")
#: CSIT's vnf of each guest.
GUESTS = ("testpmd_io", "vppl2xc", "vppip4noarp")
#: VPP's names of the guest VPP's two virtio_user ports (``net_virtio_user``: "VirtioUser").
GUEST_PORTS = ("VirtioUser0", "VirtioUser1")


def guest_vpp_commands(guest: str, config: DutTestConfig) -> list[str]:
    """The guest VPP's lines (CSIT's ``resources/templates/vm/<vnf>_2vhostvr1024.exec``)."""
    one, two = GUEST_PORTS
    lines = [f"set interface state {name} up" for name in GUEST_PORTS]
    if guest == "vppl2xc":
        return [
            *lines,
            f"set interface l2 xconnect {one} {two}",
            f"set interface l2 xconnect {two} {one}",
        ]
    if guest != "vppip4noarp":
        return []
    lines += [
        f"set interface ip address {name} {address}/30"
        for name, address in zip(GUEST_PORTS, GUEST_IP4, strict=True)
    ]
    for side in (0, 1):  # each TG side's prefix back towards the DUT's vhost on that side
        prefix = _prefix(config, side)
        lines.append(f"ip route add {prefix} via {DUT_VHOST_IP4[side][:-3]} {GUEST_PORTS[side]}")
    return lines


def _prefix(config: DutTestConfig, side: int) -> str:
    port = config.ports[side]
    if not port.routed_prefix:
        raise DutError(f"vhost guest: port {port.key} has no routed prefix")
    return port.routed_prefix


@dataclasses.dataclass(frozen=True)
class VhostVpp(FreshVpp):
    """A vhost family's VPP set-up; ``forwarding`` "l2xc", "l2bd" or "ip4", ``vnf`` the guest's
    (``GUESTS``)."""

    forwarding: str
    vnf: str
    plugins: tuple[str, ...] = ("vhost",)

    def check(self) -> None:
        """FamilyDefinitionError naming the family for an unknown forwarding or guest."""
        if self.forwarding not in ("l2xc", "l2bd", "ip4"):
            raise FamilyDefinitionError(
                f"family {self.family}: forwarding {self.forwarding!r} unknown"
            )
        if self.vnf not in GUESTS:
            raise FamilyDefinitionError(f"family {self.family}: guest {self.vnf!r} unknown")

    @property
    def guest(self) -> str | None:
        """CSIT's vnf of the guest between the two vhost-user interfaces."""
        return self.vnf

    def guest_commands(self, config: DutTestConfig) -> list[str]:
        """The guest VPP's lines (none for testpmd)."""
        return guest_vpp_commands(self.vnf, config)

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The DUT VPP's lines: vhost-user clients, then port 1 <-> vhost 1, vhost 2 <-> port 2."""
        lines = [f"create vhost-user socket {socket}" for socket in SOCKETS]
        lines += [f"set interface state {name} up" for name in (*names, *VHOSTS)]
        joined = l2_pair_commands(self.forwarding, ((names[0], VHOSTS[0]), (VHOSTS[1], names[1])))
        return lines + (self._ip4(config, names) if joined is None else joined)

    def _ip4(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        lines: list[str] = []
        for side in (0, 1):
            port, name, vhost, vrf = config.ports[side], names[side], VHOSTS[side], VRFS[side]
            lines += [
                f"ip table add {vrf}",
                f"set interface ip table {name} {vrf}",
                f"set interface ip table {vhost} {vrf}",
                f"set interface ip address {name} {port.ip4_address}",
                f"set interface ip address {vhost} {DUT_VHOST_IP4[side]}",
                f"set ip neighbor {name} {port.peer_ip4} {port.peer_mac.lower()} static",
                f"ip route add table {vrf} {_prefix(config, side)} via {port.peer_ip4} {name}",
                f"ip route add table {vrf} {_prefix(config, 1 - side)} "
                f"via {GUEST_IP4[side]} {vhost}",
            ]
        return lines
