"""Shared pieces of the store tests: real records of sim searches and MRR measurements."""

from __future__ import annotations

import datetime
import functools
import json
from pathlib import Path
from typing import Any

from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.results.mrrrecord import build_mrr_record
from ndrpdr.results.record import RecordTraffic
from ndrpdr.results.schema import validate_record
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "topologies" / "sim.yaml"
PROFILE = get_profile("ethip4-ip4base")
UTC = datetime.timezone.utc
NDRPDR_TEST = "64B-1c-ethip4-ip4base-ndrpdr"
MRR_TEST = "64B-1c-ethip4-ip4base-mrr"


@functools.cache
def sim_topology() -> Topology:
    """The simulator's topology (read once)."""
    return load_topology(SIM)


@functools.cache
def _search_record_text() -> str:
    """One real NDR/PDR search on the simulator (made once; tests get copies)."""
    topology = sim_topology()
    outcome = search_call(
        SimTrafficGenerator(topology, 64),
        topology=topology,
        profile=PROFILE,
        frame_size=64,
        goals=ndr_pdr_goals(),
    )
    return json.dumps(outcome.record.to_json())


@functools.cache
def _mrr_record_text() -> str:
    """A real MRR measurement (3 x 1 s at the sim TG's max load), made once."""
    topology = sim_topology()
    tg = SimTrafficGenerator(topology, 64)
    trials = [tg.measure(1.0, tg.max_load_pps) for _ in range(3)]
    start = datetime.datetime(2026, 11, 20, 22, 5, tzinfo=UTC)
    record = build_mrr_record(
        traffic=RecordTraffic(topology, PROFILE, 64, 2),
        load_pps=tg.max_load_pps,
        trial_duration_s=1.0,
        trials=trials,
        started=start,
        finished=start + datetime.timedelta(seconds=3),
    )
    return json.dumps(record)


def search_record() -> dict[str, Any]:
    """A copy of the search record (valid against the schema)."""
    record: dict[str, Any] = json.loads(_search_record_text())
    return record


def mrr_record() -> dict[str, Any]:
    """A copy of the MRR record (valid against the schema)."""
    record: dict[str, Any] = json.loads(_mrr_record_text())
    return record


def with_run(
    record: dict[str, Any],
    run_id: str,
    started: str,
    test: str,
    *,
    versions: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``record`` with a ``run`` section (format 1.5.0), validated."""
    record["run"] = {
        "id": run_id,
        "started": started,
        "test": test,
        "suite": "Throughput.Ethip4-Ip4Base",
        "tags": ["NDRPDR", "64B", "1C"],
        "revision": "0123456789abcdef0123456789abcdef01234567",
        "versions": versions if versions is not None else {"DUT1": "ndrpdr 0.1.0 (simulator)"},
    }
    validate_record(record)
    return record


def scaled(record: dict[str, Any], factor: float) -> dict[str, Any]:
    """``record`` with its NDR / PDR bounds scaled by ``factor`` (another night's result)."""
    for section in ("ndr", "pdr"):
        for field in ("lower_bound", "upper_bound", "conditional_throughput"):
            if record[section][field] is not None:
                record[section][field] *= factor
    return record


def write_run(directory: Path, records: dict[str, dict[str, Any]]) -> Path:
    """Write ``records`` as a results directory (``<test>.json`` each); returns it."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, record in records.items():
        (directory / f"{name}.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    return directory
