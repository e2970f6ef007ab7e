"""The VPP set-ups of the policer and ADL families, rendered for 2-node and 3-node (no VPP).

CSIT puts the policer on every TG-facing port (2-node: both ports of DUT1,
one policer and table; 3-node: DUT1's first and DUT2's second port), each
session matching the destination of the traffic entering there; the ADL
allowlist on DUT1's first port and, 3-node, DUT2's second, allowing the
sources entering there.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.plan import plan_duts
from ndrpdr.families import get_family
from ndrpdr.families.build import host
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.path import compute_path

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("eth0", "eth1")
POLICER = "ethip4-ip4base-ipolicemarkbase"


def rendered(family: str, topology: str) -> list[tuple[DutTestConfig, list[str]]]:
    """(plan, vppctl lines) of each DUT of ``topology`` for ``family``."""
    loaded = load_topology(ROOT / "topologies" / topology)
    setup = get_family(family).setup
    assert setup.vpp is not None
    plans = plan_duts(loaded, compute_path(loaded), "ip4base", family=setup)
    return [(config, setup.vpp.commands(config, NAMES)) for config in plans.values()]


def traffic_destination(family: str, direction: int) -> str:
    return get_family(family).profile.directions[direction].dst


@pytest.mark.parametrize(
    ("topology", "ports"), [("local-vpp.yaml", [[0, 1]]), ("local-vpp-3n.yaml", [[0], [1]])]
)
def test_the_policer_polices_the_destination_entering_each_tg_port(
    topology: str, ports: list[list[int]]
) -> None:
    duts = rendered(POLICER, topology)
    assert len(duts) == len(ports)
    for (config, lines), sides in zip(duts, ports, strict=True):
        assert sum(line.startswith("policer add name policer1 ") for line in lines) == 1
        policer = next(line for line in lines if line.startswith("policer add"))
        assert "type 2r3c-2698 color-aware cir 100 eir 150 " in policer
        assert "exceed-action mark-and-transmit AF22" in policer
        sessions = [line for line in lines if line.startswith("classify session ")]
        assert len(sessions) == len(sides)
        for side, session in zip(sides, sessions, strict=True):
            # the destination the entering direction's traffic carries, routed out the other port
            destination = host(str(config.ports[1 - side].routed_prefix), 2)
            assert destination == traffic_destination(POLICER, side)
            assert session.endswith(f"match l3 ip4 dst {destination} opaque-index 1")
            assert f"set policer classify interface {NAMES[side]} ip4-table 0" in lines
        assert any(line.startswith("ip route add ") for line in lines)  # base routing too


@pytest.mark.parametrize(
    "family", ["ethip4-ip4base-adlalwlistbase", "ethip6-ip6base-adlalwlistbase"]
)
@pytest.mark.parametrize(
    ("topology", "ports"), [("local-vpp.yaml", [[0]]), ("local-vpp-3n.yaml", [[0], [1]])]
)
def test_adl_allows_the_sources_entering_the_filtered_port(
    family: str, topology: str, ports: list[list[int]]
) -> None:
    ip6 = family.startswith("ethip6")
    for (config, lines), sides in zip(rendered(family, topology), ports, strict=True):
        assert (("ip6" if ip6 else "ip") + " table add 1") in lines
        allowlists = [line for line in lines if line.startswith("adl allowlist ")]
        assert allowlists == [
            f"adl allowlist {NAMES[side]} ip{6 if ip6 else 4} fib-id 1" for side in sides
        ]
        for side in sides:
            port = config.ports[side]
            sources = port.routed_prefix6 if ip6 else port.routed_prefix
            headers = get_family(family).profile.directions[side]
            assert ipaddress.ip_address(headers.src) in ipaddress.ip_network(str(sources))
            assert f"ip route add {sources} table 1 via local" in lines
            assert f"adl interface {NAMES[side]}" in lines
