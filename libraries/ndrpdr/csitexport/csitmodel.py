"""A result record as one test case of CSIT's JSON model (``test_case`` schema, version 1.5.1).

Pure: a record (and what Robot said about its test) in, a JSON-ready dict
out (its ``result`` from ``ndrpdr.csitexport.csitresult``, its names from
``ndrpdr.csitexport.csitnames``); nothing is read or written here
(``ndrpdr.cli.export_cmd`` does that, ``ndrpdr.csitexport.csitschema``
validates). The mapping, field by field (docs/trends.rst, "Exporting to CSIT's
model" has the same as a table):

- ``result`` of an NDRPDR record: ``{"type": "ndrpdr", "ndr": {"lower": ...},
  "pdr": {"lower": ...}}``. CSIT's ``lower`` is the aggregate *conditional
  throughput* (its schema: "median forwarding rate among long trials"),
  so it is our ``conditional_throughput``, not our relevant lower bound;
  ``upper`` is left out as CSIT leaves it out (our relevant lower and
  upper bounds stay in our record). The binary and bswlv searches give no
  conditional throughput: their lower bound (RFC 2544's throughput) is
  exported instead, and ``csit_caveats`` says so. ``rate`` is in ``pps`` (frames/s,
  aggregate over directions, as ours), ``bandwidth`` in ``bps`` with 20 B
  of L1 overhead per frame (``ndrpdr.profiles.bandwidth_bps``).
  ``latency_forward`` / ``latency_reverse`` (direction 0 / 1) come from our
  latency points at 0, 10, 50 and 90 % of PDR, [us]: min rounded down, avg
  to the nearest, max up, to whole microseconds (CSIT's are integers), and
  ``hdrh`` "" (we keep percentiles, no histogram). A direction lacking
  one of the four points (or with no frames measured) is left out, as
  CSIT leaves out latency its TG could not measure.
- ``result`` of an MRR record: ``{"type": "mrr", "receive_rate": {"rate":
  ..., "bandwidth": ...}}``: every trial's receive rate [pps, aggregate],
  their mean and *population* standard deviation (CSIT computes it with
  jumpavg, dividing by n; our record keeps the sample stdev), and the same
  as bandwidth [bps].
- ``result`` of a soak record: ``{"type": "soak", "critical_rate":
  {"lower": ..., "upper": ...}}``: CSIT's soak bounds, the critical load's
  estimate minus / plus one stdev (ours ``soak.critical_load_pps.lower`` /
  ``upper``), as rate [pps, aggregate] and bandwidth [bps]. CSIT's soak is
  for loss ratio 1e-7; another target is exported all the same and
  ``csit_caveats`` says so.
- ``result`` is ``{"type": "unknown"}`` (the model's "no specific result")
  when there is nothing to report: a search that stopped early
  (``incomplete``), NDR or PDR without a lower bound (a lossy min load),
  an MRR without trials, a soak that failed or measured no trial.
- ``passed`` is true when the record passed and Robot (when its verdict is
  known) said PASS; ``message`` is then "" (the model requires it), else
  Robot's message, else the record's error.
- ``start_time`` / ``end_time`` are the record's ``started`` / ``finished``
  (the search's, not Robot's setup and teardown) in UTC, RFC 3339 with
  ``Z``; ``duration`` their difference [s].
- ``dut_type`` / ``tg_type`` are the drivers (``vpp``, ``trex``, ``sim``);
  ``dut_version`` / ``tg_version`` come from the record's ``run.versions``
  when it has them, the tool's own version for the simulator (it is part
  of ndrpdr), else ``unknown`` (as CSIT writes when it does not know).
- ``hosts`` are the nodes as ``{testbed}/{node}`` (``sim/DUT1``): our
  records name nodes, not addresses.
- ``tags`` are Robot's tags of the test when known (output.xml or the
  record's ``run.tags``), else what the record tells: ``NDRPDR`` / ``MRR``
  (or ``SOAK``) and the frame size (``64B``, ``IMIX``).
- ``telemetry`` is empty: CSIT's entries are its own metric lines, read
  by its ETL; ours are free-form command outputs kept in our record.
- Not in the model (its objects allow no other field): our goals, trials,
  irregular reasons, the search's settings and the link to log.html.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.csitexport.csitnames import CsitNames, csit_names, default_suite
from ndrpdr.csitexport.csitresult import (
    CsitModelError,
    frame_size_of,
    mrr_result,
    ndrpdr_result,
    number,
    soak_result,
)
from ndrpdr.trend.history import testbed_name

#: The version of CSIT's model the documents follow (its ``version`` field).
CSIT_MODEL_VERSION = "1.5.1"

#: CSIT's goals: NDR and PDR loss ratios, and the exceed ratio of both.
CSIT_NDR_LOSS, CSIT_PDR_LOSS, CSIT_EXCEED = 0.0, 0.005, 0.5
#: CSIT's soak loss ratio.
CSIT_SOAK_LOSS = 1e-7

#: Our record kinds -> the model's ``result`` of each (its test type is the kind).
RESULTS = {"ndrpdr": ndrpdr_result, "mrr": mrr_result, "soak": soak_result}

#: Drivers that are part of ndrpdr itself: their version is the tool's.
OWN_DRIVERS = frozenset({"sim"})


@dataclasses.dataclass(frozen=True)
class RobotTest:
    """What the record alone does not say about its test: Robot's names and verdict."""

    #: The test's name (``64B-1c-ethip4-ip4base-ndrpdr``).
    name: str
    #: The suite's full name (``Throughput.Ethip4-Ip4Base-Ndrpdr``) as Robot
    #: gives it; "" when not known (``names_of_test`` says what is used then).
    suite: str = ""
    #: Robot's tags of the test; empty when not known.
    tags: tuple[str, ...] = ()
    #: Robot's status (``PASS``, ``FAIL``, ``SKIP``); None when not known.
    status: str | None = None
    #: Robot's test message ("" when none or not known).
    message: str = ""
    #: The test's documentation.
    documentation: str = ""
    #: The suite when neither Robot nor the record names one (``ndrpdr export --suite``).
    fallback_suite: str = ""


def rfc3339_utc(text: Any, field: str, test: str) -> datetime.datetime:
    """The record's time ``text`` in UTC; CsitModelError naming ``test`` and ``field`` if bad."""
    try:
        moment = datetime.datetime.fromisoformat(str(text))
    except ValueError:
        raise CsitModelError(f"{test}: {field}: not an ISO 8601 time: {text!r}") from None
    if moment.tzinfo is None:  # records write UTC with an offset; a naive time is UTC too
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.astimezone(datetime.timezone.utc)


def _time_text(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _versions(record: Mapping[str, Any]) -> Mapping[str, Any]:
    return (record.get("run") or {}).get("versions") or {}


def _type_and_version(
    record: Mapping[str, Any], nodes: Sequence[Mapping[str, Any]]
) -> tuple[str, str]:
    """(driver type, version) of ``nodes``: each distinct driver / version once, joined by ``+``."""
    if not nodes:
        return "none", "unknown"
    drivers = list(dict.fromkeys(str(n.get("driver") or "unknown").lower() for n in nodes))
    versions = _versions(record)
    tool = str((record.get("tool") or {}).get("version") or "unknown")
    found: list[str] = []
    for node in nodes:
        text = versions.get(str(node.get("node")))
        if text:
            found.append(str(text))
        elif str(node.get("driver")) in OWN_DRIVERS:
            found.append(f"ndrpdr {tool}")
        else:
            found.append("unknown")
    return "+".join(drivers), "+".join(dict.fromkeys(found))


def _derived_tags(record: Mapping[str, Any]) -> list[str]:
    frame = str((record.get("profile") or {}).get("frame_size", ""))
    tags = [str(record.get("kind", "ndrpdr")).upper()]
    if frame:
        tags.append(frame.upper() if frame.upper() == "IMIX" else f"{frame}B")
    return tags


def _passed_and_message(record: Mapping[str, Any], test: RobotTest) -> tuple[bool, str]:
    passed = record.get("status") == "passed" and test.status in (None, "PASS")
    if passed:
        return True, ""
    for text in (test.message, record.get("error")):
        if text and str(text).strip():
            return False, str(text)
    return False, f"Robot status {test.status}" if test.status else "failed"


def _kind(record: Mapping[str, Any], test: RobotTest) -> str:
    kind = str(record.get("kind", "ndrpdr"))
    if kind not in RESULTS:
        raise CsitModelError(f"{test.name}: kind: {kind!r} has no test type in CSIT's model")
    return kind


def tags_of_test(record: Mapping[str, Any], test: RobotTest) -> list[str]:
    """Robot's tags of the test, else the record's ``run.tags``, else kind and frame size."""
    run = record.get("run") or {}
    return list(test.tags) or [str(t) for t in run.get("tags") or ()] or _derived_tags(record)


def names_of_test(record: Mapping[str, Any], test: RobotTest) -> CsitNames:
    """The model's names of the test (``csitnames``; ``info_path`` gives its file).

    The suite is Robot's, else the record's ``run.suite``, else
    ``fallback_suite``, else the one the test's name implies
    (``default_suite``); CsitModelError when none.
    """
    run = record.get("run") or {}
    suite = (
        test.suite or str(run.get("suite") or "") or test.fallback_suite or default_suite(test.name)
    )
    if not suite:
        raise CsitModelError(
            f"{test.name}: no suite: the name is not of the pattern 64B-1c-<suite>"
            " and nothing names its suite (give one: ndrpdr export --suite NAME)"
        )
    profile = record.get("profile") or {}
    return csit_names(
        suite=suite,
        test_name=test.name,
        test_type=_kind(record, test),
        profile=str(profile.get("name", "")),
        frame_size=str(profile.get("frame_size", "")),
        testbed=testbed_name(record),
        tags=tags_of_test(record, test),
    )


def csit_test_case(record: Mapping[str, Any], test: RobotTest) -> dict[str, Any]:
    """``record`` of Robot test ``test`` as a document of CSIT's test_case model 1.5.1.

    Raises CsitModelError naming the test and the field when the record
    cannot be said in the model (an unknown kind, a bad time, no suite).
    """
    kind = _kind(record, test)
    frame_size_of(record, test.name)
    started = rfc3339_utc(record.get("started"), "started", test.name)
    finished = rfc3339_utc(record.get("finished"), "finished", test.name)
    if finished < started:
        raise CsitModelError(
            f"{test.name}: finished {record.get('finished')} is before started"
            f" {record.get('started')}"
        )
    tags = tags_of_test(record, test)
    names = names_of_test(record, test)
    testbed = testbed_name(record)
    section = record.get("testbed") or {}
    tg = [section["tg"]] if section.get("tg") else []
    duts = list(section.get("duts") or [])
    dut_type, dut_version = _type_and_version(record, duts)
    tg_type, tg_version = _type_and_version(record, tg)
    prefix = f"{testbed}/" if testbed else ""
    hosts = [f"{prefix}{node.get('node')}" for node in [*tg, *duts]] or [testbed or "unknown"]
    passed, message = _passed_and_message(record, test)
    return {
        "version": CSIT_MODEL_VERSION,
        "test_id": names.test_id,
        "test_name_long": names.test_name_long,
        "test_name_short": names.test_name_short,
        "test_type": kind,
        "test_documentation": test.documentation,
        "tags": tags,
        "start_time": _time_text(started),
        "end_time": _time_text(finished),
        "duration": (finished - started).total_seconds(),
        "dut_type": dut_type,
        "dut_version": dut_version,
        "tg_type": tg_type,
        "tg_version": tg_version,
        "hosts": hosts,
        "passed": passed,
        "message": message,
        "result": RESULTS[kind](record),
        "telemetry": [],
    }


def _goal_of(record: Mapping[str, Any], loss: float) -> Mapping[str, Any] | None:
    for goal in record.get("goals") or []:
        if goal.get("loss_ratio") == loss:
            return dict(goal)
    return None


def csit_caveats(record: Mapping[str, Any], document: Mapping[str, Any]) -> list[str]:
    """Where the document says less, or other, than CSIT's readers assume (one line each)."""
    notes: list[str] = []
    if record.get("kind", "ndrpdr") == "ndrpdr":
        pdr_loss = float((record.get("search") or {}).get("pdr_loss_ratio", CSIT_PDR_LOSS))
        for label, loss, csit_loss in (
            ("NDR", CSIT_NDR_LOSS, CSIT_NDR_LOSS),
            ("PDR", pdr_loss, CSIT_PDR_LOSS),
        ):
            goal = _goal_of(record, loss)
            if goal is None:
                continue
            if loss != csit_loss or goal.get("exceed_ratio") != CSIT_EXCEED:
                notes.append(
                    f"{label} goal has loss ratio {loss:g} and exceed ratio"
                    f" {goal.get('exceed_ratio')}, CSIT's {csit_loss:g} and {CSIT_EXCEED:g}"
                )
    soak_loss = (record.get("soak") or {}).get("loss_ratio", CSIT_SOAK_LOSS)
    if record.get("kind") == "soak" and soak_loss != CSIT_SOAK_LOSS:
        notes.append(f"soak for loss ratio {soak_loss:g}, CSIT's {CSIT_SOAK_LOSS:g}")
    result = document.get("result") or {}
    if result.get("type") == "ndrpdr":
        for section in ("ndr", "pdr"):
            if number((record.get(section) or {}).get("conditional_throughput")) is None:
                algorithm = (record.get("search") or {}).get("algorithm")
                notes.append(
                    f"{section}.lower is the {algorithm} search's lower bound:"
                    " it gives no conditional throughput"
                )
    if result.get("type") == "unknown":
        why = (
            "the search stopped early"
            if record.get("incomplete")
            else "no trial measured"
            if record.get("kind") == "mrr"
            else "the soak failed or measured no trial"
            if record.get("kind") == "soak"
            else "NDR or PDR has no lower bound"
        )
        notes.append(f"result type unknown: {why}")
    if result.get("type") == "ndrpdr" and (record.get("latency") or {}).get("status") == "measured":
        directions = int((record.get("profile") or {}).get("directions", 2))
        wanted = ("latency_forward", "latency_reverse")[:directions]
        missing = [name for name in wanted if name not in result]
        if missing:
            notes.append(
                "latency measured but left out of "
                + ", ".join(missing)
                + ": the model needs 0, 10, 50 and 90 % of PDR with frames measured"
            )
    return notes
