"""VPP on memif ports (``port_kind: memif``): the clients of the TG's memif sockets (pure).

A memif port (``model: memif``, ``ndrpdr.topology.memif``) has no Linux
interface: the TG (TRex's net_memif devices, ``ndrpdr.trafficgen.trex.
memif``) listens on the link's socket file, and VPP's memif plugin
connects to it as the client ("slave"): ``create memif socket id <id>
filename <file>``, ``create interface memif id 0 socket-id <id> ... slave``.
The TG is the server because it lives for the whole suite, while VPP
starts per run and its ports come and go with each test; a client
connects again by itself. VPP then renames the interface (``memif<id>/0``)
to the name the driver gives every port on Linux-side kinds,
``host-<port name>``, so that the forwarding set-up is the same.

The ring size is ``RING_SIZE`` (VPP's 1024 lost frames at 0.1 Mpps while
TRex, on one core, was busy sending), the rings are zero-copy on VPP's
side (it lends its own buffers to every ring), so startup.conf's buffers
(FD.io CSIT's count) are never scaled below ``BUFFERS_PER_NUMA``. Each
port has ``rx_queues`` ring pairs.
Socket ids start at ``FIRST_SOCKET_ID``, clear of the memif families'
socket (id 1, ``ndrpdr.families.kinds.memif.vpp``). A memif's queues exist only
once it is connected, so the set-up names no RX mode or placement: VPP
polls them, spread over its workers.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndrpdr.dut.base import DutError, DutPort, DutTestConfig

#: VPP's memif plugin.
MEMIF_PLUGIN = "memif_plugin.so"
#: Slots of each memif ring (VPP's default is 1024).
RING_SIZE = 4096
#: The fewest buffers per NUMA node: 2 ports x 2 rings x RING_SIZE lent to the rings, and as
#: many to work.
BUFFERS_PER_NUMA = 65536
#: The socket id of the first port (the second has the next).
FIRST_SOCKET_ID = 101


def _socket(port: DutPort, where: str) -> str:
    if port.memif_socket is None:
        raise DutError(
            f"{where}: port {port.key} has no memif socket: with port_kind memif each DUT "
            f"port is a memif (interfaces.{port.key}.model: memif, its link's socket file)"
        )
    return port.memif_socket


def memif_name(socket_id: int) -> str:
    """VPP's own name of the memif on socket ``socket_id`` (interface id 0)."""
    return f"memif{socket_id}/0"


def create_commands(
    config: DutTestConfig, names: Sequence[str], rx_queues: tuple[int, int]
) -> list[str]:
    """The socket and memif of each port, renamed to its name in ``names``.

    DutError names a port without a memif socket.
    """
    commands = []
    for index, (port, name, queues) in enumerate(zip(config.ports, names, rx_queues, strict=True)):
        socket_id = FIRST_SOCKET_ID + index
        socket = _socket(port, "configure")
        commands += [
            f"create memif socket id {socket_id} filename {socket}",
            f"create interface memif id 0 socket-id {socket_id} ring-size {RING_SIZE} "
            f"hw-addr {str(port.mac).lower()} slave rx-queues {queues} tx-queues {queues}",
            f"set interface name {memif_name(socket_id)} {name}",
        ]
    return commands


def delete_commands(names: Sequence[str]) -> list[str]:
    """The commands that remove the memifs ``names`` and then their sockets."""
    return [f"delete interface memif {name}" for name in names] + [
        f"delete memif socket id {FIRST_SOCKET_ID + index}" for index in range(len(names))
    ]
