"""A testbed in use: set up from a topology, DUTs and TG driven, everything torn down after.

``ActiveTestbed`` is the one place that knows which driver runs which node:
it builds the local namespaces when the topology asks for them, opens node
access, makes the DUT drivers and the TG driver, and undoes all of it in
``teardown`` (on success, on failure, on Ctrl-C), collecting DUT telemetry
on the way out. Nothing happens in ``__init__``.

A node with SSH access is driven over SSH even when the local testbed builds
its ports (``host_namespaces``: an sshd runs in that node's namespace, as
the SSH tests of the DUT drivers do).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from types import TracebackType

from ndrpdr.access.base import NodeAccess
from ndrpdr.access.factory import open_access
from ndrpdr.dut.base import DutDriver, ForwardingMode
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.registry import make_dut_driver
from ndrpdr.errors import NdrPdrError
from ndrpdr.localbed import LocalTestbed
from ndrpdr.profiles import FrameSize, Profile
from ndrpdr.testbed.model import NetnsAccess, Topology
from ndrpdr.trafficgen.base import TrafficGenerator, TrafficGeneratorError

_log = logging.getLogger(__name__)


class TestbedError(NdrPdrError):
    """The testbed could not be set up or used (names the node and step)."""

    __test__ = False  # not a pytest test class despite the name


def uses_local_testbed(topology: Topology) -> bool:
    """True when some node lives in a network namespace of this machine."""
    return any(isinstance(n.access, NetnsAccess) for n in topology.nodes.values())


def forwarding_mode(profile: Profile) -> ForwardingMode:
    """How the DUT must forward a profile's traffic: L2 profiles cross-connect, L3 route."""
    return "l2xc" if profile.layer == "L2" else "ip4base"


class ActiveTestbed:
    """Set up with ``setup()`` or ``with``; then configure DUTs and get a TG per traffic."""

    __test__ = False  # not a pytest test class despite the name

    def __init__(
        self,
        topology: Topology,
        *,
        run_id: str | None = None,
        host_namespaces: Mapping[str, str] | None = None,
    ) -> None:
        """Remember ``topology``; ``run_id`` names the local namespaces (default: fresh).

        ``host_namespaces``: {node key: logical namespace} for nodes without
        netns access (SSH) whose ports the local testbed builds in that namespace.
        """
        self.topology = topology
        self._run_id = run_id
        self._host_namespaces = dict(host_namespaces or {})
        self._localbed: LocalTestbed | None = None
        self._access: dict[str, NodeAccess] = {}
        self._duts: dict[str, DutDriver] = {}
        self._started: list[DutDriver] = []
        self._tg: TrafficGenerator | None = None
        self.telemetry: dict[str, dict[str, str]] = {}
        self._up = False

    # -- lifecycle -----------------------------------------------------------------
    def setup(self) -> None:
        """Create namespaces (local topologies), node access and DUT drivers.

        On failure, whatever was made is torn down before the error propagates.
        """
        if self._up:
            return
        try:
            if uses_local_testbed(self.topology) or self._host_namespaces:
                self._localbed = LocalTestbed(
                    self.topology, run_id=self._run_id, host_namespaces=self._host_namespaces
                )
                self._localbed.setup()
            for dut in self.topology.duts:
                self._duts[dut.key] = make_dut_driver(dut, self.access(dut.key))
            self._up = True
        except BaseException:
            self.teardown()
            raise

    def teardown(self) -> None:
        """Stop traffic, stop DUTs (keeping their telemetry), remove the testbed. Idempotent.

        The local namespaces are removed even when Ctrl-C interrupts the steps
        before (removing them also ends the processes left in them).
        """
        errors: list[str] = []
        try:
            self._guard(errors, "stop traffic", self._close_tg)
            self._stop_started(errors)
            while self._access:
                _, access = self._access.popitem()
                self._guard(errors, f"{access.node} close", access.close)
        finally:
            self._started.clear()
            self._duts.clear()
            self._access.clear()
            localbed, self._localbed = self._localbed, None
            if localbed is not None:
                self._guard(errors, "local testbed teardown", localbed.teardown)
            self._up = False
            if errors:
                _log.warning("teardown finished with errors:\n%s", "\n".join(errors))

    def __enter__(self) -> ActiveTestbed:
        self.setup()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.teardown()

    # -- parts ---------------------------------------------------------------------
    @property
    def run_id(self) -> str | None:
        """The local testbed's run id (None for topologies without namespaces)."""
        return self._localbed.run_id if self._localbed is not None else self._run_id

    def access(self, node_key: str) -> NodeAccess:
        """Node access for ``node_key``, opened on first use."""
        if node_key not in self.topology.nodes:
            raise TestbedError(f"{self.topology.source}: no node {node_key!r}")
        if node_key not in self._access:
            node = self.topology.nodes[node_key]
            if self._localbed is not None and isinstance(node.access, NetnsAccess):
                self._access[node_key] = self._localbed.access(node_key)
            else:
                self._access[node_key] = open_access(node)
        return self._access[node_key]

    @property
    def duts(self) -> dict[str, DutDriver]:
        """DUT drivers by node key (after setup)."""
        return dict(self._duts)

    def configure_duts(
        self, mode: ForwardingMode, *, cores: int = 1, max_frame_size_b: int = 1518
    ) -> None:
        """Configure every DUT for ``mode`` and (re)start it; health-check each."""
        self._require_up()
        config = plan_dut(self.topology, mode, cores=cores, max_frame_size_b=max_frame_size_b)
        for dut in self._duts.values():
            if dut in self._started:
                dut.stop()
                self._started.remove(dut)
            dut.configure(config)
            self._started.append(dut)
            dut.start()
            dut.health_check()

    def stop_duts(self) -> None:
        """Stop every started DUT, keeping its telemetry first (the testbed stays up).

        Every DUT is stopped even when another fails; the failures are then
        raised together as one TestbedError.
        """
        errors: list[str] = []
        self._stop_started(errors)
        if errors:
            raise TestbedError("stopping the DUTs: " + "; ".join(errors))

    def traffic_generator(
        self, profile: Profile, frame_size: FrameSize, *, bidirectional: bool = True
    ) -> TrafficGenerator:
        """The TG driver for this traffic (the previous one, if any, is closed)."""
        self._require_up()
        self._close_tg()
        tg = self.topology.tg
        if tg.driver == "sim":
            from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator  # noqa: PLC0415

            self._tg = SimTrafficGenerator(self.topology, frame_size, bidirectional=bidirectional)
        elif tg.driver == "local":
            from ndrpdr.trafficgen.local import LocalTrafficGenerator  # noqa: PLC0415

            assert self._localbed is not None
            self._tg = LocalTrafficGenerator(
                self._localbed, self.topology, profile, frame_size, bidirectional=bidirectional
            )
        elif tg.driver == "trex":
            from ndrpdr.trafficgen.trex import TrexTrafficGenerator  # noqa: PLC0415

            self._tg = TrexTrafficGenerator(
                self.topology,
                profile,
                frame_size,
                bidirectional=bidirectional,
                access=self.access(tg.key),
            )
        else:
            raise TrafficGeneratorError(
                f"{self.topology.source}: nodes.{tg.key}.driver {tg.driver!r} has no driver; "
                "use sim, local or trex"
            )
        return self._tg

    def collect_telemetry(self) -> dict[str, dict[str, str]]:
        """Telemetry of every started DUT now (also kept in ``self.telemetry``)."""
        for dut in self._started:
            self._keep_telemetry(dut)
        return dict(self.telemetry)

    # -- helpers -------------------------------------------------------------------
    def _require_up(self) -> None:
        if not self._up:
            raise TestbedError("the testbed is not set up: call setup() first")

    def _close_tg(self) -> None:
        tg, self._tg = self._tg, None
        if tg is not None:
            try:
                tg.stop_traffic()
            finally:
                tg.close()

    def _stop_started(self, errors: list[str]) -> None:
        """Keep each started DUT's telemetry, then stop it; failures go to ``errors``."""
        while self._started:
            dut = self._started.pop()
            keep = functools.partial(self._keep_telemetry, dut)
            self._guard(errors, f"{dut.node} telemetry", keep)
            self._guard(errors, f"{dut.node} stop", dut.stop)

    def _keep_telemetry(self, dut: DutDriver) -> None:
        self.telemetry[dut.node] = dut.telemetry()

    @staticmethod
    def _guard(errors: list[str], what: str, action: Callable[[], object]) -> None:
        try:
            action()
        except Exception as exc:  # teardown goes on; the error is reported
            errors.append(f"{what}: {exc}")
