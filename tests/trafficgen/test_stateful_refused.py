"""The frame-sending TG drivers (local, TRex STL) refuse a stateful family, naming it and why."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndrpdr.families import get_family
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.base import ProfileTraffic, UnsupportedTrafficError

ROOT = Path(__file__).resolve().parents[2]
STATEFUL = "ethip4udp-nat44ed-h65536-p63-s4128768-cps"


@pytest.mark.parametrize("topology", ["local-linux-trex.yaml", "local-vpp.yaml"])
def test_a_stateful_family_is_unsupported_traffic_for_a_frame_tg(topology: str) -> None:
    loaded = load_topology(ROOT / "topologies" / topology)
    with pytest.raises(UnsupportedTrafficError) as caught:
        ProfileTraffic(loaded, get_family(STATEFUL).profile, 64, True)
    message = str(caught.value)
    assert message.startswith(f"{loaded.tg.key}: family {STATEFUL} is stateful")
    assert "udp_cps" in message and f"the {loaded.tg.driver} TG" in message


def test_a_stateless_family_is_still_taken() -> None:
    loaded = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    traffic = ProfileTraffic(loaded, get_family("ethip4-ip4base").profile, 64, True)
    assert traffic.profile.transactions is None
