"""A record becomes a Sample: its test, its run (from the record or the caller), its metrics."""

from __future__ import annotations

import datetime

from record_helpers import SIM, sim_record

from ndrpdr.topology.loader import load_topology
from ndrpdr.trend.history import sample_from_record

UTC = datetime.timezone.utc


def test_a_record_without_a_run_section_takes_the_callers_run_and_its_own_start() -> None:
    record = sim_record(load_topology(SIM))
    sample = sample_from_record("64B-1c-ethip4-ip4base-ndrpdr", record, run_id="nightly-7")
    assert sample.run_id == "nightly-7"
    assert sample.testbed == "sim"
    assert sample.key.name == "64B-1c-ethip4-ip4base-ndrpdr"
    assert sample.key.frame_size == "64" and sample.key.profile == "ethip4-ip4base"
    assert sample.started == datetime.datetime.fromisoformat(record["started"]).astimezone(UTC)
    assert sample.metrics["NDR lower"].value_pps == record["ndr"]["lower_bound"]
    assert sample.metrics["PDR lower"].value_pps == record["pdr"]["lower_bound"]
    assert sample.status == "passed" and not sample.caveat
    assert sample.tags == () and sample.revision is None and dict(sample.versions) == {}


def test_the_records_run_section_wins_over_the_callers() -> None:
    record = sim_record(load_topology(SIM))
    record["run"] = {
        "id": "jenkins-vpp-412",
        "started": "2026-11-24T22:00:00+01:00",
        "test": "64B-1c-ethip4-ip4base-ndrpdr",
        "tags": ["NDRPDR", "64B"],
        "revision": "a000af1",
        "versions": {"DUT1": "sim 0.1.0"},
    }
    record["irregular"] = [{"goal": "NDR", "reason": "min load is an upper bound"}]
    earlier = datetime.datetime(2000, 1, 1, tzinfo=UTC)
    sample = sample_from_record("other-name", record, run_id="ignored", run_started=earlier)
    assert sample.run_id == "jenkins-vpp-412"
    assert sample.started == datetime.datetime(2026, 11, 24, 21, 0, tzinfo=UTC)
    assert sample.key.name == "64B-1c-ethip4-ip4base-ndrpdr"
    assert sample.tags == ("NDRPDR", "64B") and sample.revision == "a000af1"
    assert dict(sample.versions) == {"DUT1": "sim 0.1.0"}
    assert sample.caveat
