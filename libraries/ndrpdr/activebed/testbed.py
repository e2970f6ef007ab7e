"""A testbed in use: set up from a topology, DUTs and TG driven, everything torn down after.

``ActiveTestbed`` puts together what a topology describes, through the
drivers' descriptions (``ndrpdr.drivers``), never by driver name:

* the traffic path (``compute_path``, optionally by NIC model), checked
  against the node counts each driver on it supports;
* the local network namespaces when nodes live in them (netns access, and
  the hosts of a lab in a box, which also get a management veth and an
  sshd: their nodes are then driven over SSH exactly as lab hosts,
  ``self.topology`` holding their SSH access);
* node access, a DUT driver per DUT on the path, and the TG's session
  (a TRex server and its connection) when its driver has one: started at
  set-up, health-checked before each test's traffic, shared by every test;
* a TG driver per kind of traffic (``traffic_generator``).

``teardown`` undoes all of it (on success, on failure, on Ctrl-C),
collecting DUT telemetry on the way out. Nothing happens in ``__init__``.
What the nodes are before they are driven (in namespaces of this machine,
the drivers' chains, a family's set-ups) is ``ndrpdr.activebed.nodes``'s.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ndrpdr.access.base import NodeAccess
from ndrpdr.access.factory import open_access
from ndrpdr.activebed.cpuplace import (
    CpuPlacement,
    machine_text,
    place_cpus,
    placed_nodes,
    single_cpu_problem,
)
from ndrpdr.activebed.cputhreads import DutThreads, placement_texts
from ndrpdr.activebed.nodes import (
    TestbedError,
    check_path_drivers,
    family_problem,
    labbox_namespaces,
    uses_local_testbed,
    with_labbox_hosts,
)
from ndrpdr.drivers import describe
from ndrpdr.dut.base import DutDriver, ForwardingMode, UnsupportedFamilyError
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.health import health_interval_s
from ndrpdr.dut.plan import plan_duts
from ndrpdr.dut.registry import make_dut_driver
from ndrpdr.errors import NdrPdrError
from ndrpdr.families import Family, get_family
from ndrpdr.localbed import LocalTestbed
from ndrpdr.localbed.cpuclaim import CpuClaims
from ndrpdr.localbed.naming import new_run_id
from ndrpdr.optionaldeps import require
from ndrpdr.profiles import FrameSize, Profile
from ndrpdr.topology.model import NetnsAccess, Topology
from ndrpdr.topology.path import TrafficPath, compute_path
from ndrpdr.trafficgen.base import TgSession, TrafficContext, TrafficGenerator

if TYPE_CHECKING:
    from ndrpdr.labbox import LabboxHosts

#: TestbedError is ``nodes``'s, and its users import it from here too.
__all__ = ["ActiveTestbed", "TestbedError"]

_log = logging.getLogger(__name__)


class ActiveTestbed:
    """Set up with ``setup()`` or ``with``; then configure DUTs and get a TG per traffic."""

    def __init__(
        self,
        topology: Topology,
        *,
        run_id: str | None = None,
        nic: str | None = None,
    ) -> None:
        """Remember ``topology``; ``run_id`` names the local namespaces (default: fresh).

        ``nic``: the NIC model the traffic path's DUT ports must have
        (default: the first that gives a whole path).
        """
        self.topology = topology
        self.source_topology = topology
        self.nic = nic
        self._run_id = run_id
        self._path: TrafficPath | None = None
        self._localbed: LocalTestbed | None = None
        self._hosts: LabboxHosts | None = None
        self._access: dict[str, NodeAccess] = {}
        self._duts: dict[str, DutDriver] = {}
        self._started: list[DutDriver] = []
        self._session: TgSession | None = None
        self._tg: TrafficGenerator | None = None
        self.telemetry: dict[str, dict[str, str]] = {}
        #: What health checks of the TG session had to say (a restarted server...).
        self.health_notes: list[str] = []
        #: Data-plane worker cores of the DUTs' current configuration (the sim's model reads it).
        self.cores = 1
        #: Where the nodes on this machine run (see ``ndrpdr.activebed.cpuplace``), by node key.
        self.cpu_placements: dict[str, CpuPlacement] = {}
        #: The DUTs' CPUs and which CPU each thread got (``ndrpdr.activebed.cputhreads``).
        self.threads = DutThreads()
        self._claims: CpuClaims | None = None
        self._health_checked: dict[str, float] = {}  # node key: monotonic time of the last check
        self._up = False

    # -- lifecycle -----------------------------------------------------------------
    def setup(self) -> None:
        """Compute the path, build local hosts, open access, make the drivers, start the TG.

        On failure, whatever was made is torn down before the error propagates.
        """
        if self._up:
            return
        try:
            self._path = compute_path(self.topology, self.nic)
            check_path_drivers(self.topology, self._path)
            self._place_cpus()
            self._build_local()
            for key in self._path.duts:
                self._duts[key] = make_dut_driver(self.topology.nodes[key], self.access(key))
            self._open_session()
            self._up = True
        except BaseException:
            self.teardown()
            raise

    def _place_cpus(self) -> None:
        """Claim CPUs for the TG and DUTs on this machine (warns when one is shared)."""
        assert self._path is not None
        self.cpu_placements = {}
        keys = placed_nodes(self.topology, (self.topology.tg.key, *self._path.duts))
        if not keys:
            return
        self._claims = CpuClaims(self._run_id or new_run_id())
        self.topology, self.cpu_placements = place_cpus(self.topology, keys, self._claims)
        for key, placement in self.cpu_placements.items():
            if placement.shared or placement.error is not None:
                _log.warning("%s: %s", key, placement.text)

    def _build_local(self) -> None:
        if not uses_local_testbed(self.topology):
            return
        hosts = labbox_namespaces(self.topology)
        if hosts:  # said before the namespaces are made: its hosts are reached over SSH
            require(("paramiko", "cryptography"), "a lab in a box", extra="lab")
        run_id = self._claims.run_id if self._claims is not None else self._run_id
        self._localbed = LocalTestbed(self.topology, run_id=run_id, host_namespaces=hosts)
        self._localbed.setup()
        if hosts:
            from ndrpdr.labbox import LabboxHosts  # noqa: PLC0415 - only a lab in a box needs it

            self._hosts = LabboxHosts(self._localbed, list(hosts))
            self.topology = with_labbox_hosts(self.topology, self._hosts)

    def _open_session(self) -> None:
        tg = self.topology.tg
        make = describe("TG", tg.driver).session
        if make is None:
            return
        self._session = make(self.topology, access=self.access(tg.key), path=self._path)
        self._session.open()

    def teardown(self) -> None:
        """Stop traffic, stop DUTs (keeping their telemetry), stop the TG, remove the testbed.

        Idempotent. The local namespaces are removed even when Ctrl-C
        interrupts the steps before (removing them also ends the processes
        left in them).
        """
        errors: list[str] = []
        try:
            self._guard(errors, "stop traffic", self._close_tg)
            self._stop_started(errors)
            self._close_duts(errors)
            session, self._session = self._session, None
            if session is not None:
                self._guard(errors, "close the TG session", session.close)
            while self._access:
                _, access = self._access.popitem()
                self._guard(errors, f"{access.node} close", access.close)
        finally:
            self._started.clear()
            self._duts.clear()
            self._access.clear()
            hosts, self._hosts = self._hosts, None
            if hosts is not None:
                self._guard(errors, "stop the lab-in-a-box hosts", hosts.stop)
            localbed, self._localbed = self._localbed, None
            if localbed is not None:
                self._guard(errors, "local testbed teardown", localbed.teardown)
            claims, self._claims = self._claims, None
            if claims is not None:
                claims.release()
            self.topology = self.source_topology
            self.threads.forget()
            self._up = False
            if errors:
                _log.warning("teardown finished with errors:\n%s", "\n".join(errors))

    def __enter__(self) -> ActiveTestbed:
        self.setup()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.teardown()

    # -- parts ---------------------------------------------------------------------
    @property
    def run_id(self) -> str | None:
        """The local testbed's run id (None for topologies without namespaces)."""
        return self._localbed.run_id if self._localbed is not None else self._run_id

    @property
    def path(self) -> TrafficPath:
        """The traffic path (computed by ``setup``; before it, computed now)."""
        if self._path is None:
            return compute_path(self.topology, self.nic)
        return self._path

    @property
    def session(self) -> TgSession | None:
        """The TG's testbed-wide session (None when its driver has none, or before setup)."""
        return self._session

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
        """Configure every DUT on the path for ``mode`` and (re)start it; health-check each.

        ``mode`` stands for its family: ``ip4base`` is ``ethip4-ip4base``,
        ``l2xc`` is ``eth-l2xcbase``.
        """
        family = get_family("eth-l2xcbase" if mode == "l2xc" else "ethip4-ip4base")
        self.configure_family(family, cores=cores, max_frame_size_b=max_frame_size_b)

    def family_problem(self, family: Family) -> str | None:
        """Why this testbed's path cannot run ``family`` (its chain, a driver), or None."""
        self._require_up()
        return family_problem(self.topology, self.path, family)

    def configure_family(
        self, family: Family, *, cores: int = 1, max_frame_size_b: int = 1518, smt: bool = True
    ) -> None:
        """Configure every DUT on the path for ``family`` and (re)start it; health-check each.

        ``cores`` physical cores, each with its SMT siblings unless ``smt`` is
        false (``ndrpdr.dut.smt``). UnsupportedFamilyError (a skip, not a
        failure) when the path's chain or a DUT driver on it cannot run the
        family; UnsupportedCoresError (a skip too) when a DUT has too few CPUs.
        """
        problem = self.family_problem(family)
        if problem is not None:
            raise UnsupportedFamilyError(problem)
        base: ForwardingMode = "l2xc" if family.profile.layer == "L2" else "ip4base"
        configs = plan_duts(
            self.topology,
            self.path,
            base,
            cores=cores,
            max_frame_size_b=max_frame_size_b,
            family=family.setup,
        )
        configs = self.threads.prepare(self.topology, configs, self.access, smt=smt)
        for key, placement in self.cpu_placements.items():
            single = single_cpu_problem(self.topology.nodes[key], placement, cores)
            if single is not None:
                raise UnsupportedCoresError(single)
        self.cores = cores
        for key, dut in self._duts.items():
            driver = self.topology.nodes[key].driver
            mode = family.setup.mode(driver, base)
            config = dataclasses.replace(configs[key], mode=mode)
            if dut in self._started:
                dut.stop()
                self._started.remove(dut)
            try:
                dut.configure(config)
            except UnsupportedCoresError as exc:  # a skip: say what CPUs there are
                where = machine_text(self.cpu_placements)
                raise UnsupportedCoresError(f"{exc}; {where}" if where else str(exc)) from exc
            self.threads.note(self.topology.nodes[key], config)
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
        """The TG driver for this traffic (the previous one, if any, is closed).

        The TG's session, if any, is health-checked first: a session that
        had to restart (a TRex server that died) says so in ``health_notes``
        and the log. The previous traffic over a session that failed to close
        (its server died in the last test) is a note too, not this test's
        failure.
        """
        self._require_up()
        try:
            self._close_tg()
        except NdrPdrError as exc:
            if self._session is None:
                raise
            # the last test's TRex traffic could not be closed (its server died or froze
            # there): that test failed for it; the health check below restarts the server
            self._health_note(f"closing the previous test's traffic failed: {exc}")
        if self._session is not None:
            restarted = self._session.health_check()
            if restarted:
                self._health_note(restarted)
        tg = self.topology.tg
        context = TrafficContext(
            topology=self.topology,
            path=self.path,
            profile=profile,
            frame_size=frame_size,
            bidirectional=bidirectional,
            localbed=self._localbed,
            session=self._session,
            dut_cores=self.cores,
        )
        made: TrafficGenerator = describe("TG", tg.driver).factory(context)
        self._tg = made
        return made

    def check_duts(self, *, lost_all: bool = False) -> None:
        """Health-check every started DUT (DutError names the node, process, status, log tail).

        A DUT is skipped when checked less than its ``health_interval_s``
        ago (0 on this machine, 2 s over SSH, more if its driver says so:
        ``ndrpdr.dut.health``), unless ``lost_all`` (the
        last trial lost every frame). A ``HealthCheck`` for ``run_search``.
        """
        now = time.monotonic()
        for dut in self._started:
            access = self._access.get(dut.node)
            interval = 0.0 if access is None else health_interval_s(dut, access)
            last = self._health_checked.get(dut.node)
            if not lost_all and last is not None and now - last < interval:
                continue
            self._health_checked[dut.node] = now
            dut.health_check()

    def collect_telemetry(self) -> dict[str, dict[str, str]]:
        """Telemetry of every started DUT now (also kept in ``self.telemetry``)."""
        for dut in self._started:
            self._keep_telemetry(dut)
        return dict(self.telemetry)

    # -- helpers -------------------------------------------------------------------
    def _require_up(self) -> None:
        if not self._up:
            raise TestbedError("the testbed is not set up: call setup() first")

    def _health_note(self, note: str) -> None:
        self.health_notes.append(note)
        _log.warning("%s", note)

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

    def _close_duts(self, errors: list[str]) -> None:
        """End what a DUT driver keeps for the whole run (its ``close``).

        A driver whose data plane lives across tests (VPP of the run on af_packet
        ports) stops it here; failures go to ``errors``.
        """
        for dut in self._duts.values():
            self._guard(errors, f"{dut.node} close", dut.close)

    def _keep_telemetry(self, dut: DutDriver) -> None:
        texts = placement_texts(dut.node, self.cpu_placements, self._claims)
        self.telemetry[dut.node] = {**dut.telemetry(), **texts, **self.threads.texts(dut.node)}

    @staticmethod
    def _guard(errors: list[str], what: str, action: Callable[[], object]) -> None:
        try:
            action()
        except Exception as exc:  # teardown goes on; the error is reported
            errors.append(f"{what}: {exc}")
