"""VPP set-ups of the IP feature families: base routing plus a policer or an ADL allowlist.

Both add to the base IPv4 / IPv6 routing (``ndrpdr.families.vppip``) on
the ports facing the TG, as CSIT's keywords do:

- ``Policer`` (``ipolicemarkbase``, after CSIT's ``Initialize IPv4 policer
  2r3c-'ca' in circular topology``): a color-aware 2R3C (RFC 2698) policer
  in packets per second (CIR 100, EIR 150, committed and excess bursts of
  one frame [B]: the test's largest, where CSIT takes its average frame,
  which only IMIX tells apart; rounding to the closest), conforming frames
  transmitted, exceeding ones marked AF22, violating ones transmitted;
  an IPv4 classify table on the destination address (/32) with one
  session per TG-facing port: the destination of the traffic entering
  there (host 2 of the far prefix, CSIT's 20.20.20.2 and 10.10.10.2),
  policed, pre-colored "exceed" (opaque index 1); the table is the
  port's policer classifier. On 2-node both ports of the DUT share one
  policer and table; on 3-node each DUT has its own for its TG port;
- ``Adl`` (``adlalwlistbase``, after CSIT's ADL suites): FIB table 1 holds
  the source prefix of the traffic entering the port as a local route;
  the port's ADL allowlist uses FIB 1 and ADL is on at its input. CSIT
  filters DUT1's first port (direction 0) and, on 3-node, DUT2's second
  one (direction 1) too; so does this.

Policers, classify tables and FIB tables outlive the test's ports: each
test gets a fresh VPP. Every command was checked against VPP v26.06
(policer and adl plugins).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.families import vppip
from ndrpdr.families.build import host
from ndrpdr.families.vppsetup import FreshVpp

#: CSIT's policer rates [packets/s] and the DSCP exceeding frames get.
CIR_PPS, EIR_PPS = 100, 150
EXCEED_DSCP = "AF22"
#: The pre-color of classified frames (VPP's policer pre-colors: conform 0, exceed 1).
EXCEED_COLOR = 1
#: The FIB table the ADL allowlist looks sources up in.
ADL_FIB = 1
#: Seconds an IPv6 set-up waits for VPP's own MLD reports [s].
SETTLE_S = {4: 0.0, 6: vppip.MLD_SETTLE_S}


def tg_sides(config: DutTestConfig, *, both_on_one_dut: bool) -> list[int]:
    """The port sides (0, 1) of this DUT that face the TG and get the feature.

    The first DUT's port 0 always; the last DUT's port 1 when it is another
    DUT (3-node) or when ``both_on_one_dut`` (a 2-node DUT filtering both).
    """
    sides = [0] if config.position == 0 else []
    last = config.position == config.chain - 1
    if last and (config.chain > 1 or both_on_one_dut):
        sides.append(1)
    return sides


def _base(ip_version: int, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    if ip_version == 4:
        return vppip.ip4_base(config, names)
    return vppip.ip6_base(config, names)


@dataclasses.dataclass(frozen=True)
class Policer(FreshVpp):
    """An ``ipolicemarkbase`` set-up (the module docstring)."""

    plugins: tuple[str, ...] = ("policer",)

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """IPv4 routing, the policer, the table, a session per TG port, the classifiers."""
        burst = config.max_frame_size_b
        lines = vppip.ip4_base(config, names)
        lines += [
            f"policer add name policer1 type 2r3c-2698 color-aware cir {CIR_PPS} eir {EIR_PPS} "
            f"cb {burst} eb {burst} rate pps round closest conform-action transmit "
            f"exceed-action mark-and-transmit {EXCEED_DSCP} violate-action transmit",
            "classify table mask l3 ip4 dst buckets 2 memory-size 2M",
        ]
        sides = tg_sides(config, both_on_one_dut=True)
        for side in sides:
            destination = host(str(config.ports[1 - side].routed_prefix), 2)
            lines.append(
                f"classify session policer-hit-next policer1 table-index 0 "
                f"match l3 ip4 dst {destination} opaque-index {EXCEED_COLOR}"
            )
        lines += [f"set policer classify interface {names[side]} ip4-table 0" for side in sides]
        return lines


@dataclasses.dataclass(frozen=True)
class Adl(FreshVpp):
    """An ``adlalwlistbase`` set-up of IPv4 or IPv6 (the module docstring)."""

    ip_version: Literal[4, 6]
    plugins: tuple[str, ...] = ("adl",)

    @property
    def settle_s(self) -> float:
        """IPv6: VPP's MLD reports after the set-up; IPv4: none [s]."""
        return SETTLE_S[self.ip_version]

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """Base routing, FIB 1 with the filtered sources, the allowlist and ADL on."""
        ip = "ip" if self.ip_version == 4 else "ip6"
        lines = [*_base(self.ip_version, config, names), f"{ip} table add {ADL_FIB}"]
        for side in tg_sides(config, both_on_one_dut=False):
            port = config.ports[side]
            sources = port.routed_prefix if self.ip_version == 4 else port.routed_prefix6
            if sources is None:
                raise DutError(
                    f"family {self.family}: port {port.key} has no routed IPv6 prefix in the plan"
                )
            lines += [
                f"ip route add {sources} table {ADL_FIB} via local",
                f"adl allowlist {names[side]} ip{self.ip_version} fib-id {ADL_FIB}",
                f"adl interface {names[side]}",
            ]
        return lines
