"""The result record of one search: a plain JSON document with a versioned schema.

The record is a type until it is written (``ndrpdr.results.searchrecord``:
``SearchRecord.to_json`` makes the document); this module holds the
format's version, the sections other records share (trials, testbed,
profile) and the writer. Loads are aggregate over the traffic's directions,
in frames per second (``*_pps``; ``ndrpdr.units`` states the convention);
bandwidths include 20 B of L1 overhead per frame (``*_bps``).
``ndr`` / ``pdr`` are the first goals with loss ratio 0 and
``search.pdr_loss_ratio`` (0.005 by default); every goal is also in
``goals``. ``trials`` holds every trial measured, even when
the search failed (``status`` "failed" and ``error`` say why); then the
bounds are the ones those trials support and ``incomplete`` is true.
A trial's counts add up: intended = offered + unsent, offered = forwarded +
lost (``loss_count``: frames the DUT lost); its loss ratio counts unsent
frames as lost. ``tg_limit`` (and each goal's ``tg_limited``) says whether
the TG, not the DUT, limited the bounds (``ndrpdr.results.tglimit``).
``latency`` (since 1.2.0) holds the latency trials after the search
(``ndrpdr.latencyrun``): per load point and direction min/avg/max and
percentiles [us], or ``status`` "not measured" and why.
``irregular`` (since 1.3.0) lists what is irregular about the result
(``ndrpdr.results.irregular``); ``search.max_search_time_s`` is the time
cap and ``search.time_capped`` says whether the search stopped at it.
Since 1.4.0 a record may also be of ``kind`` "mrr" (``ndrpdr.results.mrrrecord``):
the same top-level fields where they apply, and an ``mrr`` section instead
of the search's. Since 1.5.0 a record of either kind may have a ``run``
section (the keyword layer stamps it when it writes the record): the run's
id and start, the Robot test, suite and tags, the suites' git revision
and the versions of the nodes' software (``ndrpdr.trend.history``
reads it; records without it stay valid). ``profile`` names the family
(``name``) and, in records written since test families (optional, so
older records stay valid), has ``min_frame_size_b`` and ``traffic``: per
direction sent, the frame layout, addresses, flows, the varied fields and
how many distinct frames a pcap-based TG sends.
Since 1.6.0 a trial has ``surplus_count``: frames received beyond those
sent (duplicates, foreign frames; the trial counts as no loss and says so in
its warnings), and ``irregular`` may say ``DUT flapping``.
Since 1.7.0 a traffic direction may be tunnelled (its ``layout`` says so:
``Ether / IPv4 / UDP(1024->6081) / GENEVE(vni 1) / Ether / IPv4(proto 61)``)
and vary the tunnel's fields ``tunnel.sport``, ``tunnel.vni`` and
``inner.eth.dst``.
Also since 1.7.0 a stateful family's record (NAT44) has ``search.ramp_up``: its
ramp-up trials and the DUT's state counted after the first (an ASTF family's
``rate_pps`` is its aggregate load, as ``load_pps``: CSIT's transactions/s).
Since 1.8.0 a record may also be of ``kind`` "soak" (``ndrpdr.results.soakrecord``):
the same top-level fields where they apply, and a ``soak`` section: the loss
ratio target, the time budget and the time used, the critical load's
estimate (mean, stdev, CSIT's bounds mean -/+ stdev, the 95 % interval)
and every trial.
Since 1.9.0 the ``soak`` section may have ``bursts``: the evidence that the
DUT's loss came in bursts, which the soak's estimate does not account for
(null when there is none; records without it stay valid).
Since 1.10.0 a DUT of ``testbed.cpus`` may have ``thread_plan``: which
logical CPU each data-plane thread got (main thread, each worker with its
physical core and which of the core's SMT threads it is) and CSIT's
``<threads>T<cores>C`` tag (``ndrpdr.dut.smt``).
Since 1.11.0 a DUT of ``testbed.duts`` may have ``startup_scaled``: where
its startup.conf differs from FD.io CSIT's and why, one line per value
("memory main-heap-size 3G -> 512M: ..."; empty: CSIT's values; absent: the
driver does not say, or an older record).
Since 1.12.0 a DUT of ``testbed.cpus`` may have ``peer_thread_plan``: the
same as ``thread_plan`` for the second VPP of a memif family (FD.io CSIT's
container), which runs on CPUs of its own (``ndrpdr.dut.vpp.peerthreads``).
Since 1.13.0 the ``search`` section has ``intermediate_trials``: whether mlr
ran an intermediate-duration trial before each load's first full-length one
(``INTERMEDIATE_TRIALS``, ``--intermediate-trials``; older records lack it:
off).
Since 1.14.0 a soak record's ``critical_load_pps`` has ``median``: the
estimate (the posterior median; ``mean`` stays CSIT's avg, and with the
stdev its lower / upper bounds), and its interval is the one the search
reports, the trials' spread read in (before: the one after the last trial).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import ndrpdr
from ndrpdr.profiles import FrameSize, Profile, average_frame_size, pcap_flows
from ndrpdr.results.journal import write_json_atomically
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.model import Topology

#: Version of the record format; bump the major part on incompatible changes.
RECORD_VERSION = "1.14.0"


def not_asked_latency() -> dict[str, Any]:
    """The ``latency`` section of a record whose search was not asked to measure latency."""
    return {
        "status": "not measured",
        "reason": "not asked for",
        "pdr_pps": None,
        "duration_s": None,
        "points_pct": [],
        "points": [],
    }


def trial_entry(index: int, trial: TrialResult) -> dict[str, Any]:
    """One trial as a JSON object."""
    reason = trial.reason
    return {
        "index": index,
        "duration_s": trial.duration,
        "load_pps": trial.load,
        "intended_count": trial.intended_count,
        "offered_count": trial.offered_count,
        "unsent_count": trial.unsent_count,
        "forwarded_count": trial.forwarded_count,
        "loss_count": trial.loss_count,
        "surplus_count": trial.surplus_count,
        "loss_ratio": trial.loss_ratio,
        "effective_duration_s": trial.effective_duration,
        "reason": None
        if reason is None
        else {
            "algorithm": reason.algorithm,
            "phase": reason.phase,
            "strategy": reason.strategy,
            "goal": reason.goal,
            "detail": reason.detail,
        },
        "warnings": list(trial.warnings),
    }


#: DUT telemetry texts the ``cpus`` part of ``testbed`` carries, by the record's name for them.
CPU_TEXTS: tuple[tuple[str, str], ...] = (
    ("placement", "cpu_placement"),
    ("layout", "cpu_layout"),
    ("threads", "show_threads"),
    ("rx_placement", "show_rx_placement"),
    ("shared_with", "cpu_shared_with"),
)


#: The DUT telemetry text (JSON) of the ``thread_plan`` part of ``testbed.cpus``.
THREAD_PLAN_TEXT = "cpu_threads"
#: The same of the second VPP of a memif family (``peer_thread_plan``, since 1.12.0).
PEER_THREAD_PLAN_TEXT = "cpu_peer_threads"


def cpus_section(telemetry: Mapping[str, Mapping[str, str]]) -> dict[str, Any] | None:
    """Which CPU did what, from the DUTs' telemetry (None when it says nothing about CPUs).

    ``machine``: the run's CPUs and who had them (the TG's too: "this
    machine has 2 CPU(s) for the run: TG on cpu 0, DUT1 on cpu 1 (workers:
    cpu 1)"), or None off this machine; per DUT its ``placement`` (the CPU
    claimed), ``layout`` (main thread, workers' or lcores' CPUs, RX queues
    per port), VPP's ``threads`` and ``rx_placement`` (which thread reads
    each RX queue), each None when its driver does not say, and
    ``shared_with``: the other runs that used its CPU while it ran (None:
    none did; a result that has one is irregular, ``CPU_SHARED``), and
    ``thread_plan``: which CPU each data-plane thread got (the JSON text
    ``cpu_threads``, ``ndrpdr.dut.smt.ThreadPlan.to_json``), when the driver
    has workers, and ``peer_thread_plan``: the same of a memif family's second
    VPP (``cpu_peer_threads``), when the test has one.
    """
    duts = []
    machine = None
    for node, texts in telemetry.items():
        entry: dict[str, Any] = {name: texts.get(key) for name, key in CPU_TEXTS}
        for field, key in (
            ("thread_plan", THREAD_PLAN_TEXT),
            ("peer_thread_plan", PEER_THREAD_PLAN_TEXT),
        ):
            plan = texts.get(key)
            if plan is not None:
                entry[field] = json.loads(plan)
        if any(value is not None for value in entry.values()):
            duts.append({"node": node, **entry})
        machine = machine or texts.get("cpus")
    if not duts and machine is None:
        return None
    return {"machine": machine, "duts": duts}


def dut_entry(node: str, driver: str, telemetry: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    """A DUT of ``testbed.duts``: its node, driver and, when its telemetry says,
    ``startup_scaled`` (where its startup.conf differs from FD.io CSIT's, one line each)."""
    entry: dict[str, Any] = {"node": node, "driver": driver}
    scaled = (telemetry.get(node) or {}).get("startup_scaled")
    if scaled is not None:
        entry["startup_scaled"] = [line for line in scaled.splitlines() if line.strip()]
    return entry


def testbed_section(
    topology: Topology, telemetry: Mapping[str, Mapping[str, str]] | None = None
) -> dict[str, Any]:
    """The record's ``testbed``: the topology file, the TG's and DUTs' nodes and drivers
    (``dut_entry``: with ``startup_scaled`` when the DUT's telemetry has it), and ``cpus``
    (``cpus_section``) when the DUTs' ``telemetry`` says which CPU did what."""
    tg = topology.tg
    section: dict[str, Any] = {
        "topology": str(topology.source) if topology.source else None,
        "tg": {"node": tg.key, "driver": tg.driver},
        "duts": [dut_entry(d.key, d.driver, telemetry or {}) for d in topology.duts],
    }
    cpus = cpus_section(telemetry or {})
    if cpus is not None:
        section["cpus"] = cpus
    return section


def traffic_direction(profile: Profile, frame_size: FrameSize, direction: int) -> dict[str, Any]:
    """One direction of the record's ``profile.traffic``: its headers, flows and what varies.

    ``pcap_frames``: the distinct frames a TG sending a frame list (the
    local TG's pcap) sends, all flows or a sample of them
    (``ndrpdr.profiles.frames``); TRex's field engine sends every flow.
    """
    headers = profile.directions[direction]
    return {
        "direction": direction,
        "layout": headers.layout(),
        "src": headers.src,
        "dst": headers.dst,
        "flows": headers.flows,
        "vary": [
            {"field": v.field, "count": v.count, "op": v.op, "step": v.step, "every": v.every}
            for v in headers.vary
        ],
        "pcap_frames": pcap_flows(profile, frame_size, direction),
    }


def profile_section(profile: Profile, frame_size: FrameSize, directions: int) -> dict[str, Any]:
    """The record's ``profile``: the family's traffic, its frame size [B] and directions.

    ``name`` is the family's id; ``traffic`` describes each direction sent
    (``traffic_direction``).
    """
    return {
        "name": profile.name,
        "layer": profile.layer,
        "flows_per_direction": profile.flows_per_direction,
        "frame_size": frame_size,
        "average_frame_size_b": average_frame_size(frame_size),
        "min_frame_size_b": profile.min_frame_size_b,
        "directions": directions,
        "traffic": [traffic_direction(profile, frame_size, d) for d in range(directions)],
    }


@dataclasses.dataclass(frozen=True)
class RecordTraffic:
    """The traffic a record is of: on which testbed, which profile and frames, how many
    directions."""

    topology: Topology
    profile: Profile
    frame_size: FrameSize
    directions: int


def record_head(
    kind: str,
    traffic: RecordTraffic,
    started: datetime.datetime,
    finished: datetime.datetime,
    error: str | None,
) -> dict[str, Any]:
    """The top-level fields an MRR or soak record shares with the NDRPDR record.

    ``status`` is "failed" with an ``error``, else "passed".
    """
    return {
        "version": RECORD_VERSION,
        "kind": kind,
        "tool": {"name": "ndrpdr", "version": ndrpdr.__version__},
        "status": "failed" if error else "passed",
        "error": error,
        "started": started.isoformat(timespec="seconds"),
        "finished": finished.isoformat(timespec="seconds"),
        "testbed": testbed_section(traffic.topology),
        "profile": profile_section(traffic.profile, traffic.frame_size, traffic.directions),
    }


def write_record(record: Mapping[str, Any], path: Path) -> None:
    """Write ``record`` as indented JSON, atomically (temporary file, rename; parents created)."""
    write_json_atomically(record, path)
