"""The real search through the sim finds what a real DUT would: family order, cores, 3-node.

Each case runs the library's search (``ActiveTestbed`` -> ``configure_family``
-> ``traffic_generator`` -> ``run_search``) on a shipped sim topology and
compares the NDRs found; nothing here reads the model's capacity directly.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.families import get_family
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.topology.loader import load_topology
from search_call import search_call

TOPOLOGIES = Path(__file__).resolve().parents[2] / "topologies"
#: Quick goals: 1 s trials, 2 s per load, 1 % width.
GOALS = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.01)


@cache
def _record(topology: str, family: str, cores: int = 1, frame_size: int = 64) -> dict[str, Any]:
    """The JSON record of one search of ``family`` on ``topology`` (a file in topologies/)."""
    loaded = load_topology(TOPOLOGIES / topology)
    chosen = get_family(family)
    with ActiveTestbed(loaded) as testbed:
        testbed.configure_family(chosen, cores=cores)
        tg = testbed.traffic_generator(chosen.profile, frame_size)
        outcome = search_call(
            tg,
            topology=loaded,
            profile=chosen.profile,
            frame_size=frame_size,
            goals=GOALS,
            telemetry=testbed.collect_telemetry,
        )
    record = outcome.record.to_json()
    assert record["status"] == "passed", record["error"]
    return record


def _ndr(topology: str, family: str, cores: int = 1) -> float:
    lower = _record(topology, family, cores)["ndr"]["lower_bound"]
    assert isinstance(lower, float)
    return lower


def test_on_sim_l2xc_beats_ip4base_beats_2m_random_routes() -> None:
    l2xc = _ndr("sim.yaml", "eth-l2xcbase")
    ip4base = _ndr("sim.yaml", "ethip4-ip4base")
    scale2m = _ndr("sim.yaml", "ethip4-ip4scale2m-rnd")
    assert l2xc > ip4base > scale2m
    # Well apart, not by search noise: the width is 1 %.
    assert l2xc > 1.1 * ip4base and ip4base > 1.5 * scale2m


def test_on_sim_two_cores_beat_one() -> None:
    one = _ndr("sim.yaml", "ethip4-ip4base", 1)
    two = _ndr("sim.yaml", "ethip4-ip4base", 2)
    assert two > 1.4 * one


def test_on_sim_3n_ipsec_two_cores_beat_one() -> None:
    family = "ethip4ipsec4tnlsw-ip4base-int-aes256gcm"
    one = _ndr("sim-3n.yaml", family, 1)
    two = _ndr("sim-3n.yaml", family, 2)
    assert two > 1.4 * one
    # IPsec in software forwards far less than plain routing on the same 3-node bed.
    assert _ndr("sim-3n.yaml", "ethip4-ip4base") > 3 * one


def test_the_record_telemetry_names_family_cores_and_capacity() -> None:
    family = "ethip4ipsec4tnlsw-ip4base-int-aes256gcm"
    record = _record("sim-3n.yaml", family, 2)
    ndr = record["ndr"]["lower_bound"]
    for node in ("DUT1", "DUT2"):
        texts = record["telemetry"][node]
        assert texts["family"] == family
        assert texts["cores"] == "2"
        assert texts["capacity"].startswith(f"{family} 64 B 2 core(s): ")
        mpps = float(texts["capacity"].split(": ")[1].split(" Mpps")[0])
        assert mpps * 1e6 >= ndr * (1 - 1e-3)  # the chain's NDR is at most each DUT's capacity
