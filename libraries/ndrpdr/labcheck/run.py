"""The steps of ``ndrpdr check`` in order, each node's through the access the drivers use.

Nodes of a lab (SSH) or of this machine (local access) are checked
before anything is set up; the trial then sets the testbed up as
``ndrpdr trial`` does. Nodes the run makes (network namespaces of the
local testbed, the hosts of a lab in a box) exist only once the testbed
is set up: for them the ``build`` step sets it up first, and the node
steps and the trial run on it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

from ndrpdr.access.base import NodeAccess
from ndrpdr.access.factory import open_access
from ndrpdr.activebed.nodes import check_path_drivers, uses_local_testbed
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.errors import NdrPdrError
from ndrpdr.labcheck.outcome import Outcome, error_text, failed, passed, skipped
from ndrpdr.labcheck.ports import (
    PortFacts,
    macs_outcome,
    path_ports,
    ports_outcome,
    read_ports,
)
from ndrpdr.labcheck.reach import check_reach
from ndrpdr.labcheck.versions import check_version
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Node, Topology
from ndrpdr.topology.path import TrafficPath, compute_path

#: One trial on a set-up testbed (what ``ndrpdr trial`` does): what was sent, in words
#: ("10 kpps for 1 s (ethip4-ip4base, 64 B)"), and the trial.
TrialFn = Callable[[ActiveTestbed], tuple[str, TrialResult]]

#: The node steps, in the order they print (each over every node).
NODE_STEPS = ("reach", "version", "ports", "macs")


@dataclasses.dataclass(frozen=True)
class CheckSettings:
    """What to check: the ``topology`` file, the ``nic`` model of its path, the ``trial``
    (None: no trial), the trial's largest acceptable loss ratio, and how a node is reached
    before the testbed is set up (``open_node``: the drivers' access by default)."""

    topology: Path
    nic: str | None = None
    trial: TrialFn | None = None
    max_loss_ratio: float = 0.0
    open_node: Callable[[Node], NodeAccess] = open_access
    make_testbed: Callable[[Topology, str | None], ActiveTestbed] = dataclasses.field(
        default=lambda topology, nic: ActiveTestbed(topology, nic=nic)
    )


def run_check(settings: CheckSettings) -> Iterator[Outcome]:
    """Every step's outcome, as it is known (a failed step's dependants are skipped)."""
    try:
        topology = load_topology(settings.topology)
        path = compute_path(topology, settings.nic)
        check_path_drivers(topology, path)
    except NdrPdrError as exc:
        first, rest = error_text(exc)
        yield failed(
            "topology",
            first,
            f"correct the file as the message says (ndrpdr validate --plan {settings.topology})",
            rest,
        )
        for step in (*NODE_STEPS, "trial"):
            yield skipped(step, "the topology did not load")
        return
    nodes = ", ".join(f"{n.key} ({n.driver})" for n in topology.nodes.values())
    yield passed("topology", f"{settings.topology}: {nodes}; {path.node_count}-node path")
    if uses_local_testbed(topology):
        yield from _check_built(topology, path, settings)
    else:
        yield from _check_lab(topology, path, settings)


def _check_lab(topology: Topology, path: TrafficPath, settings: CheckSettings) -> Iterator[Outcome]:
    """Node steps through each node's own access, then the trial on a testbed of its own."""
    accesses: dict[str, NodeAccess] = {}

    def access(key: str) -> NodeAccess:
        if key not in accesses:
            accesses[key] = settings.open_node(topology.nodes[key])
        return accesses[key]

    try:
        all_passed = yield from _node_steps(topology, path, access)
    finally:
        for opened in accesses.values():
            opened.close()
    if not all_passed:
        yield skipped("trial", "an earlier step failed")
        return
    yield from _trial_step(settings, lambda: settings.make_testbed(topology, settings.nic))


def _check_built(
    topology: Topology, path: TrafficPath, settings: CheckSettings
) -> Iterator[Outcome]:
    """Set the testbed up (its nodes are made for the run), then node steps and trial on it."""
    testbed = settings.make_testbed(topology, settings.nic)
    try:
        testbed.setup()
    except NdrPdrError as exc:
        first, rest = error_text(exc)
        yield failed(
            "build",
            first,
            "run ndrpdr as root (it makes network namespaces); ndrpdr -v trial --topology "
            f"{settings.topology} shows the set-up step by step",
            rest,
        )
        for step in (*NODE_STEPS, "trial"):
            yield skipped(step, "the nodes made for the run could not be built")
        return
    try:
        yield passed("build", "the nodes made for the run are up (network namespaces)")
        all_passed = yield from _node_steps(testbed.topology, path, testbed.access)
        if not all_passed:
            yield skipped("trial", "an earlier step failed")
            return
        yield from _trial_step(settings, lambda: testbed)
    finally:
        testbed.teardown()


def _node_steps(
    topology: Topology, path: TrafficPath, access: Callable[[str], NodeAccess]
) -> Generator[Outcome, None, bool]:
    """reach, version, ports and macs of the nodes on ``path`` (file order), each step over
    every node; returns True when all passed. A node that cannot be reached has its other
    steps skipped, and one whose ports are missing its macs step."""
    used = path_ports(path)
    nodes = {key: node for key, node in topology.nodes.items() if key in used}
    reached: list[str] = []
    for key, node in nodes.items():
        outcome = check_reach(node, access(key))
        if outcome.status == "PASS":
            reached.append(key)
        yield outcome
    all_passed = len(reached) == len(nodes)
    unreached = {key: f"reach {key} failed" for key in nodes if key not in reached}
    for key, node in nodes.items():
        outcome = (
            skipped(f"version {key}", unreached[key])
            if key in unreached
            else check_version(node, access(key))
        )
        all_passed &= outcome.status != "FAIL"
        yield outcome
    facts: dict[str, list[PortFacts]] = {}
    for key, node in nodes.items():
        if key in unreached:
            yield skipped(f"ports {key}", unreached[key])
            continue
        facts[key] = read_ports(node, access(key), used[key])
        outcome = ports_outcome(node, facts[key])
        all_passed &= outcome.status != "FAIL"
        yield outcome
    for key, node in nodes.items():
        if key in unreached:
            yield skipped(f"macs {key}", unreached[key])
        elif any(not fact.found for fact in facts[key]):
            yield skipped(f"macs {key}", f"ports {key} failed")
        else:
            outcome = macs_outcome(node, facts[key])
            all_passed &= outcome.status != "FAIL"
            yield outcome
    return all_passed


def _trial_step(settings: CheckSettings, testbed: Callable[[], ActiveTestbed]) -> Iterator[Outcome]:
    """One short trial, as ``ndrpdr trial`` sends it; PASS when it lost at most the
    settings' loss ratio."""
    if settings.trial is None:
        yield skipped("trial", "--no-trial")
        return
    again = f"ndrpdr -v trial --topology {settings.topology} with the same options"
    try:
        with testbed() as active:
            sent, trial = settings.trial(active)
    except NdrPdrError as exc:
        first, rest = error_text(exc)
        yield failed("trial", first, f"see the set-up step by step with: {again}", rest)
        return
    intended = trial.intended_count
    received = trial.forwarded_count
    counts = f"{sent}: {intended:.0f} frames sent, {received:.0f} received"
    if received == 0 or trial.loss_ratio > settings.max_loss_ratio:
        yield failed(
            "trial",
            f"{counts} ({100 * trial.loss_ratio:.4g} % lost)",
            f"check that the file's links are the cables (ndrpdr validate --plan "
            f"{settings.topology} prints the path) and that the DUTs forward ({again})",
        )
        return
    lost = "no loss" if trial.loss_ratio == 0 else f"{100 * trial.loss_ratio:.4g} % lost"
    yield passed("trial", f"{counts}, {lost}")
