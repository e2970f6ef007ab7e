"""VPP set-up of the memif families: the DUT's VPP and a second VPP joined by two memifs.

The DUT's VPP holds two memif interfaces in the master role on one socket
(``SOCKET``, a relative name: VPP puts it in its runtime directory, the
run directory of a local VPP), ``memif1/1`` and ``memif1/2``, with fixed
MACs (``MEMIF_MACS``). It forwards port 1 <-> memif1/1 and memif1/2 <->
port 2 as the family says (CSIT's ``... with memif pairs`` keywords):

- ``l2xc``: cross-connects, both ways;
- ``l2bd``: bridge domain 1 = {port 1, memif1/1}, 2 = {memif1/2, port 2},
  learning on;
- ``ip4``: VRF 10 = {port 1, memif1/1}, VRF 11 = {memif1/2, port 2}; each
  memif has a /30 whose other host is the other memif (its MAC as static
  neighbour), so a frame the second VPP loops back arrives addressed to
  the DUT: every packet is routed twice.

The second VPP (``ndrpdr.dut.vpp.peer``: CSIT's container, here a VPP in
a network namespace of its own on the DUT's host) is the slave on the same
socket and cross-connects its two memifs both ways (``PEER_COMMANDS``),
for all three families as in CSIT. It runs as CSIT's container does: as
many workers as the DUT's on CPUs of its own, polling
(``ndrpdr.dut.vpp.peerthreads``; a node without them skips the test).

Both sides' memifs have ``rx-queues`` and ``tx-queues`` ``{queues}``: the
driver puts the DUT's RX queue count there, one per DUT worker, as CSIT
gives its DUT's memifs ``rxq_count_int`` queues each way (the second VPP's
follow: memif's slave sets the rings, here both say the same).

``dma`` (``eth-l2bdbasemaclrn-eth-2memif-dma-1dcr``, CSIT's ``chain_dma``):
the memif master's copies go to the node's DSA (``use-dma`` on its memifs,
``dma_intel`` plugin, the DSA's work queues in startup.conf's ``dsa``
section: ``ndrpdr.dut.accel.DsaDma``, one work queue per DUT worker as
CSIT's ``Enable DMA WQs on all DUTs``), and CSIT's heap multiple of 2. In
CSIT the master is the container's VPP (its ``memif_create_chain_dma.exec``)
and the DUT's memifs are zero-copy slaves; here the DUT's VPP is the
master (it listens, ``ndrpdr.dut.vpp.peer``) and the second VPP's memifs
are the zero-copy slaves, so the DSA serves the DUT's VPP: the same chain
of one DMA copy and one zero-copy hand-over each way, on the other VPP.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.dut.accel import DsaDma, HardwareNeed
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.families.build import l2_pair_commands
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.families.vppsetup import FreshVpp

#: The memif socket, relative to the DUT VPP's runtime directory, and its socket id.
SOCKET = "ndrpdr-memif.sock"
SOCKET_ID = 1
#: VPP's names of the two memifs (memif<socket id>/<id>) and their MACs.
MEMIFS = (f"memif{SOCKET_ID}/1", f"memif{SOCKET_ID}/2")
MEMIF_MACS = ("02:fe:00:00:00:01", "02:fe:00:00:00:02")
#: ip4: the VRFs of the two sides and the memifs' /30s (DUT side .1, the "other" .2).
VRFS = (10, 11)
MEMIF_NETS = ("31.31.31", "32.32.32")
#: The plugin of Intel's DMA engines (DSA) the DMA family loads.
DMA_PLUGIN = "dma_intel"
#: The second VPP's commands (after its slave memifs exist): cross-connect them both ways.
PEER_COMMANDS: tuple[str, ...] = (
    f"set interface state {MEMIFS[0]} up",
    f"set interface state {MEMIFS[1]} up",
    f"set interface l2 xconnect {MEMIFS[0]} {MEMIFS[1]}",
    f"set interface l2 xconnect {MEMIFS[1]} {MEMIFS[0]}",
)


def memif_create(role: str, *, dma: bool = False) -> list[str]:
    """The socket and the two memifs in ``role`` ("master": the DUT, "slave": the second VPP;
    ``dma``: their copies by DMA); ``{socket}`` and ``{queues}`` are left for the driver
    (``ndrpdr.dut.vpp.family``)."""
    return [
        f"create memif socket id {SOCKET_ID} filename {{socket}}",
        *(
            f"create interface memif id {index + 1} socket-id {SOCKET_ID} {role} "
            f"rx-queues {{queues}} tx-queues {{queues}} "
            f"hw-addr {MEMIF_MACS[index] if role == 'master' else _peer_mac(index)}"
            + (" use-dma" if dma else "")
            for index in range(2)
        ),
    ]


def _peer_mac(index: int) -> str:
    return f"02:fe:00:00:01:0{index + 1}"


@dataclasses.dataclass(frozen=True)
class MemifVpp(FreshVpp):
    """A memif family's VPP set-up; ``forwarding`` is "l2xc", "l2bd" or "ip4"; ``dma``: the
    DUT's memif copies on the node's DSA (``plugins`` then include ``dma_intel``)."""

    forwarding: str
    dma: bool = False
    plugins: tuple[str, ...] = ("memif",)
    #: The second VPP's commands; ``{socket}`` in memif_create's lines is the DUT's socket path,
    #: ``{queues}`` the memif queue count.
    peer_commands: tuple[str, ...] = (*memif_create("slave"), *PEER_COMMANDS)

    def check(self) -> None:
        """FamilyDefinitionError naming the family for an unknown forwarding."""
        if self.forwarding not in ("l2xc", "l2bd", "ip4"):
            raise FamilyDefinitionError(
                f"family {self.family}: forwarding {self.forwarding!r} unknown"
            )
        if self.dma and DMA_PLUGIN not in self.plugins:
            raise FamilyDefinitionError(
                f"family {self.family}: memif copies by DMA need the {DMA_PLUGIN} plugin"
            )

    @property
    def hardware(self) -> HardwareNeed | None:
        """The DSA of the DMA family (``dma``)."""
        return DsaDma() if self.dma else None

    @property
    def heap_size_mult(self) -> int:
        """CSIT's: 2 for the DMA family's suite, else 1."""
        return 2 if self.dma else 1

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The DUT VPP's lines: memifs, then port 1 <-> memif1/1 and memif1/2 <-> port 2."""
        lines = [line.replace("{socket}", SOCKET) for line in memif_create("master", dma=self.dma)]
        lines += [f"set interface state {name} up" for name in (*names, *MEMIFS)]
        joined = l2_pair_commands(self.forwarding, ((names[0], MEMIFS[0]), (MEMIFS[1], names[1])))
        return lines + (self._ip4(config, names) if joined is None else joined)

    def _ip4(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        lines: list[str] = []
        for side in (0, 1):
            port, name, memif, vrf = config.ports[side], names[side], MEMIFS[side], VRFS[side]
            net = MEMIF_NETS[side]
            other_mac = MEMIF_MACS[1 - side]
            if not port.routed_prefix or not config.ports[1 - side].routed_prefix:
                raise DutError(f"family {self.family}: port {port.key} has no routed prefix")
            lines += [
                f"ip table add {vrf}",
                f"set interface ip table {name} {vrf}",
                f"set interface ip table {memif} {vrf}",
                f"set interface ip address {name} {port.ip4_address}",
                f"set interface ip address {memif} {net}.1/30",
                f"set ip neighbor {name} {port.peer_ip4} {port.peer_mac.lower()} static",
                f"set ip neighbor {memif} {net}.2 {other_mac} static",
                f"ip route add table {vrf} {port.routed_prefix} via {port.peer_ip4} {name}",
                f"ip route add table {vrf} {config.ports[1 - side].routed_prefix} "
                f"via {net}.2 {memif}",
            ]
        return lines
