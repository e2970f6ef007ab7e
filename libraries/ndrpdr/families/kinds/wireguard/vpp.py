"""VPP set-up of the 3-node WireGuard families: N WireGuard tunnels between DUT1 and DUT2.

After CSIT's ``Initialize WireGuard in 3-node circular topology`` and its
``WireGuardUtil`` (CSIT's tunnel addresses; our plan's TG-side addresses):

- each DUT's TG port has its plan address and a static neighbour for the
  TG; traffic for the TG's side leaves there (DUT1 routes 10.0.0.0/8,
  DUT2 20.0.0.0/8);
- tunnel *i* (0 on) runs between DUT1's ``200.0.0.1 + 256 i`` and DUT2's
  ``200.0.0.2 + 256 i``, both /24 addresses of the DUT - DUT port, each DUT
  holding a static neighbour for the other's; its interface ``wg<i>``
  listens on UDP 51820 from that address and has ``1.0.0.1 + 256 i``
  (DUT1) or ``1.0.0.2 + 256 i`` (DUT2) /24; its one peer (the other DUT)
  is allowed ``20.0.0.0 + 256 i``/24 (DUT1's peer) or ``10.0.0.0 + 256 i``/24
  (DUT2's), with a persistent keepalive of 256 s, and a route sends that
  /24 into the tunnel;
- the keys are X25519 pairs derived from the family, the tunnel and the DUT
  (both DUTs render the same pairs: each DUT's private key and the other's
  public key; CSIT draws random ones).

The keepalive starts each tunnel's handshake at set-up, and ``settle_s``
waits for them before traffic: ``HANDSHAKE_S``, plus ``HANDSHAKE_PER_TUNNEL_S``
a tunnel (measured here with 1000 tunnels: 96.5 % of them were up about
30 s after the set-up and the rest stayed down, their handshakes dropped by
VPP's handshake hand-off queue). A tunnel still down starts its handshake
on the first data frame that needs it, so the first trial may lose a few
frames, as in CSIT, which does not wait at all.
``hw_async`` (``tnlhwasync``): ``set wireguard async mode on`` first
(CSIT's ``VPP Enable Wireguard Async Mode on all VPP DUTs``), the crypto
on the node's QAT (``ndrpdr.dut.accel.QatCrypto``: its virtual functions
in startup.conf's ``dpdk`` section, one per worker, as CSIT's ``Add DPDK
Cryptodev`` for its ``cryptohw`` suites).
Every command was checked against VPP v26.06 (wireguard plugin).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import ipaddress
from typing import TYPE_CHECKING

from ndrpdr.dut.accel import HardwareNeed, QatCrypto
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.families.kinds.vxlan.vpp import three_node_sides
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.families.vppsetup import FreshVpp
from ndrpdr.optionaldeps import optional_part

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

#: CSIT's WireGuard port and persistent keepalive [s].
LISTEN_PORT = 51820
KEEPALIVE_S = 256
#: Tunnel i's end points (DUT1's, DUT2's) and tunnel interface addresses are these + 256 i.
ENDPOINTS = ("200.0.0.1", "200.0.0.2")
TUNNEL_ADDRESSES = ("1.0.0.1", "1.0.0.2")
STEP = 256
#: What each DUT sends into the tunnels (DUT1: direction 0's destinations), + 256 i per tunnel.
TUNNELLED = ("20.0.0.0", "10.0.0.0")
#: What each DUT sends to its TG (the other direction's destinations).
TO_TG = ("10.0.0.0/8", "20.0.0.0/8")
#: The most tunnels 200.0.0.0/8 holds at 256 addresses each.
MAX_TUNNELS = 1 << 16
#: Seconds for the handshakes the keepalives start at set-up (each DUT's VPP starts in
#: turn: DUT1's first attempt meets no peer, VPP retries after its 5 s rekey timeout) [s].
HANDSHAKE_S = 7.0
HANDSHAKE_PER_TUNNEL_S = 0.03


def _add(address: str, number: int) -> str:
    return str(ipaddress.IPv4Address(address) + number)


def private_key(seed: str) -> X25519PrivateKey:
    """The X25519 private key derived from ``seed`` (the same wherever it is rendered).

    cryptography is an optional part (the ``local`` extra): imported here, so
    the family table loads without it.
    """
    with optional_part("the WireGuard families' keys"):
        from cryptography.hazmat.primitives.asymmetric.x25519 import (  # noqa: PLC0415
            X25519PrivateKey,
        )

    return X25519PrivateKey.from_private_bytes(hashlib.sha256(seed.encode()).digest())


def key_text(key: X25519PrivateKey, *, public: bool) -> str:
    """``key``'s private or public half in base64, as VPP's CLI takes it."""
    from cryptography.hazmat.primitives.serialization import (  # noqa: PLC0415 - optional part
        Encoding,
        PublicFormat,
    )

    raw = (
        key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        if public
        else key.private_bytes_raw()
    )
    return base64.b64encode(raw).decode()


@dataclasses.dataclass(frozen=True)
class WireguardVpp(FreshVpp):
    """A WireGuard family's VPP set-up: ``tunnels`` tunnels (the module docstring)."""

    tunnels: int
    hw_async: bool = False
    plugins: tuple[str, ...] = ("wireguard",)

    def check(self) -> None:
        """FamilyDefinitionError naming the family for a tunnel count 200.0.0.0/8 cannot hold."""
        if not 1 <= self.tunnels < MAX_TUNNELS:
            raise FamilyDefinitionError(
                f"family {self.family}: {self.tunnels} tunnels; give 1 to {MAX_TUNNELS - 1}"
            )

    @property
    def settle_s(self) -> float:
        """Seconds to wait after the set-up for the tunnels' handshakes [s]."""
        return HANDSHAKE_S + HANDSHAKE_PER_TUNNEL_S * self.tunnels

    @property
    def hardware(self) -> HardwareNeed | None:
        """The QAT of the hardware async families (``hw_async``)."""
        return QatCrypto() if self.hw_async else None

    def key(self, tunnel: int, position: int) -> X25519PrivateKey:
        """The private key of DUT ``position``'s end of ``tunnel``."""
        return private_key(f"{self.family}/{tunnel}/{position}")

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for DUT1 (position 0) or DUT2 (position 1) of a 3-node chain."""
        tg_index, link_index = three_node_sides(self.family, config)
        me, other = config.position, 1 - config.position
        tg_name, link_name = names[tg_index], names[link_index]
        tg_port, link_port = config.ports[tg_index], config.ports[link_index]
        lines = ["set wireguard async mode on"] if self.hw_async else []
        lines += [
            f"set interface state {tg_name} up",
            f"set interface state {link_name} up",
            f"set interface ip address {tg_name} {tg_port.ip4_address}",
            f"set ip neighbor {tg_name} {tg_port.peer_ip4} {tg_port.peer_mac.lower()} static",
            f"ip route add {TO_TG[me]} via {tg_port.peer_ip4} {tg_name}",
        ]
        for i in range(self.tunnels):
            mine, theirs = _add(ENDPOINTS[me], i * STEP), _add(ENDPOINTS[other], i * STEP)
            allowed = _add(TUNNELLED[me], i * STEP)
            tunnel = f"wg{i}"
            lines += [
                f"set interface ip address {link_name} {mine}/24",
                f"set ip neighbor {link_name} {theirs} {link_port.peer_mac.lower()} static",
                f"wireguard create listen-port {LISTEN_PORT} "
                f"private-key {key_text(self.key(i, me), public=False)} src {mine}",
                f"wireguard peer add {tunnel} "
                f"public-key {key_text(self.key(i, other), public=True)} endpoint {theirs} "
                f"allowed-ip {allowed}/24 dst-port {LISTEN_PORT} "
                f"persistent-keepalive {KEEPALIVE_S}",
                f"set interface state {tunnel} up",
                f"set interface ip address {tunnel} {_add(TUNNEL_ADDRESSES[me], i * STEP)}/24",
                f"ip route add {allowed}/24 via {_add(allowed, 1)} {tunnel}",
            ]
        return lines
