"""The lifecycle of a DPDK application DUT (testpmd, l3fwd), with its DPDK set-up passed in.

``DpdkAppDriver`` runs one application process on the DUT node, pinned
to the DUT CPU: ``configure`` checks the ports, ``start`` has the
``DpdkSetup`` it was given prepare the node (ports, hugepages, a unique
``--file-prefix``), starts the app and waits for its "forwarding" line,
``stop`` sends SIGINT by PID and has the set-up undo what it did. A
driver adds its command line (``_app_argv``); what is DPDK rather than
the application lives in the ``DpdkSetup`` (``ndrpdr.dut.dpdk.setup``).

Nothing here assumes the node is this machine: every command and process
goes through the NodeAccess (local, netns or SSH), and a process handle
whose node cannot be reached (an SSH connection lost) turns into a
DutError or a telemetry line, never a transport error.
"""

from __future__ import annotations

import abc
import functools
import re
import time
from collections.abc import Callable
from typing import TypeVar

from ndrpdr.access.base import BackgroundProcess, NodeAccess
from ndrpdr.access.processlog import bounded_log, log_tail
from ndrpdr.drivers import read_options
from ndrpdr.dut.base import DutDriver, DutError, DutTestConfig
from ndrpdr.dut.dpdk.lcores import forwarding_cpus, forwarding_plan
from ndrpdr.dut.dpdk.options import DpdkAppOptions
from ndrpdr.dut.dpdk.setup import DpdkSetup
from ndrpdr.dut.health import check_process
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.process import effective_cpu, pinned, stop_noting
from ndrpdr.dut.smt import ThreadPlan
from ndrpdr.errors import NdrPdrError
from ndrpdr.systemtools import require
from ndrpdr.topology.model import Node

_Options = TypeVar("_Options", bound=DpdkAppOptions)


def read_dpdk_node(
    node: Node, access: NodeAccess, driver: str, options_class: type[_Options]
) -> tuple[NodeSteps, _Options, DpdkSetup]:
    """What a DPDK app driver is made of: ``node``'s steps, its options, its DPDK set-up."""
    steps = NodeSteps(node.key, driver, access)
    options = read_options(options_class, node.options, steps.option_error)
    return steps, options, DpdkSetup(node, options, steps)


def app_threads(
    driver: str, options_class: type[DpdkAppOptions]
) -> Callable[[Node, DutTestConfig], ThreadPlan]:
    """The description's ``threads`` of a DPDK app driver: a test's lcores on ``node``, as the
    driver places them (``ndrpdr.dut.dpdk.lcores.forwarding_plan``)."""

    def threads(node: Node, config: DutTestConfig) -> ThreadPlan:
        def error(field: str, detail: str) -> DutError:
            return DutError(f"{node.key} ({driver}): options.{field}: {detail}")

        options = read_options(options_class, node.options, error)
        listed = options.worker_cores
        return forwarding_plan(f"{node.key} ({driver})", config, options.cpu, listed)

    return threads


class DpdkAppDriver(DutDriver, abc.ABC):
    """One DPDK application on the DUT node (testpmd, l3fwd); the DPDK set-up is given."""

    #: Driver name, used in messages.
    driver_name: str = "dpdk"
    #: Default binary (overridden by options.binary).
    default_binary: str = ""
    #: The system tool the app is (``ndrpdr.systemtools``), checked on the node before the
    #: set-up starts; None when the driver provides the binary itself (a build).
    system_tool: str | None = None
    #: The application is forwarding once its log matches this.
    ready_pattern: re.Pattern[str] = re.compile(r"$^")

    def __init__(
        self,
        steps: NodeSteps,
        options: DpdkAppOptions,
        dpdk: DpdkSetup,
        *,
        build: Callable[[], str] | None = None,
    ) -> None:
        """``dpdk``: the app's DPDK set-up; ``build``: makes the binary on the node at the
        first start and returns its path (None: ``options.binary`` or the default). No I/O.
        """
        self._steps = steps
        self.dpdk = dpdk
        self.options = options
        self.cpu_option = options.cpu
        #: The CPU in use (``cpu_option`` modulo the node's CPU count, set by start).
        self.cpu = self.cpu_option
        #: The CPUs of the forwarding lcores (``ndrpdr.dut.dpdk.lcores``), set by start.
        self.lcore_cpus: tuple[int, ...] = (self.cpu_option,)
        #: Queue pairs per port (one per lcore; af_xdp: one per kernel queue), set by configure.
        self.queues = 1
        self.pmd = options.pmd
        self.binary = options.binary or self.default_binary
        self.memory_mb = options.memory_mb
        self.extra_args = options.extra_args
        self.start_timeout_s = options.start_timeout_s
        self.restore_driver = options.restore_driver
        self.hugepages = options.hugepages
        self.hugepage_size_kb = options.hugepage_size_kb
        self._build = build
        self._config: DutTestConfig | None = None
        #: What names each port to the app: interface names (vdevs) or PCI addresses.
        self._devices: tuple[str, str] | None = None
        self._process: BackgroundProcess | None = None
        self._stopped_log = ""

    @property
    def node(self) -> str:
        """The node key."""
        return self._steps.node

    @property
    def file_prefix(self) -> str | None:
        """The ``--file-prefix`` of the running process (None when stopped)."""
        return self.dpdk.file_prefix

    @property
    def pid(self) -> int | None:
        """PID of the running application (None when not started)."""
        return self._process.pid if self._process is not None else None

    @property
    def uses_kernel_ports(self) -> bool:
        """True when the app reads kernel interfaces (the kernel is then kept off them)."""
        return self.dpdk.ports.uses_kernel_ports

    @property
    def uses_hugepages(self) -> bool:
        """True when the app's memory comes from hugepages."""
        return self.dpdk.uses_hugepages

    @property
    def bind_driver(self) -> str:
        """The driver pmd pci binds the ports' PCI devices to."""
        return self.dpdk.bind_driver

    @abc.abstractmethod
    def _app_argv(self, config: DutTestConfig, devices: tuple[str, str]) -> list[str]:
        """The full command line after the CPU pinning (binary, EAL args, app args)."""

    def _forwarding_cpus(self, config: DutTestConfig, cpu: int) -> tuple[int, ...]:
        """The forwarding lcores' CPUs for ``config`` (UnsupportedCoresError when too few)."""
        name = f"{self.node} ({self.driver_name})"
        return forwarding_cpus(name, config, cpu, self.options.worker_cores)

    def _peer_macs(self, flag: str, config: DutTestConfig, devices: tuple[str, str]) -> list[str]:
        """``--<flag>=<port id>,<peer MAC>`` for each port, in DPDK port order."""
        port_ids = self.dpdk.ports.port_ids(devices)
        pairs = sorted(zip(port_ids, config.ports, strict=True), key=lambda pair: pair[0])
        return [f"--{flag}={port_id},{port.peer_mac}" for port_id, port in pairs]

    # -- contract ------------------------------------------------------------------
    def configure(self, config: DutTestConfig) -> None:
        """Check ``config`` (port names, that the ports exist) and keep it; restart if running.

        UnsupportedCoresError (a skip) when ``config.cores`` asks for more
        forwarding lcores than ``worker_cores`` lists CPUs.
        """
        lcores = len(self._forwarding_cpus(config, self.cpu_option))
        devices = self.dpdk.ports.devices(config)
        self.dpdk.ports.check(config, devices)
        queues = self.dpdk.ports.queues(devices, lcores)
        running = self._process is not None
        if running:
            self.stop()
        self._config, self._devices, self.queues = config, devices, queues
        if running:
            self.start()

    def start(self) -> None:
        """Sets the node up, hands the ports to the app, starts it and waits until it forwards."""
        if self._config is None or self._devices is None:
            raise self._steps.error("start", "configure() was not called")
        if self._process is not None:
            return
        if self._build is not None:
            self.binary = self._build()
            self._build = None
        if self.system_tool is not None:
            fail = functools.partial(self._steps.error, f"start {self.driver_name}")
            require(self.system_tool, self._steps.access, binary=self.binary, fail=fail)
        self.cpu = effective_cpu(self._steps, self.cpu_option)
        self.lcore_cpus = self._forwarding_cpus(self._config, self.cpu)
        try:
            self.dpdk.apply()
            argv = [*pinned(self.lcore_cpus), "stdbuf", "-oL", "-eL"]
            argv += self._app_argv(self._config, self._devices)
            self._process = self._steps.start(f"start {self.driver_name}", argv)
            self._wait_ready(self._process)
        except BaseException:
            self._cleanup(raise_errors=False)
            raise

    def _wait_ready(self, process: BackgroundProcess) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        step = f"start {self.driver_name}"
        while True:
            log = self._steps.process_output(step, process)
            if self.ready_pattern.search(log):
                return
            if not self._steps.process_running(step, process):
                log = self._steps.process_output(step, process)  # what it wrote before exiting
                raise self._steps.error(
                    step, f"{self.binary} exited before forwarding; log tail:\n{log_tail(log)}"
                )
            if time.monotonic() > deadline:
                raise self._steps.error(
                    step,
                    f"{self.binary} did not start forwarding within {self.start_timeout_s:g} s; "
                    f"log tail:\n{log_tail(log)}",
                )
            time.sleep(0.1)

    def health_check(self) -> None:
        """DutError unless the application process runs (not exited, not stopped by SIGSTOP)."""
        process = self._process
        if process is None:
            raise self._steps.error("health check", f"{self.driver_name} is not running")
        check_process(
            self._steps.error,
            self.binary,
            process,
            self._steps.access,
            log=lambda: self._steps.process_output("health check", process),
        )

    def stop(self) -> None:
        """SIGINT the app by PID (escalating), then undo the DPDK set-up (ports, runtime dir)."""
        self._cleanup(raise_errors=True)

    def _cleanup(self, *, raise_errors: bool) -> None:
        errors: list[str] = []
        process, self._process = self._process, None
        if process is not None:
            stop_noting(process, 15.0, f"pid {process.pid}", errors)
            try:
                self._stopped_log = process.output()
            except NdrPdrError as exc:
                self._stopped_log = f"(log unavailable: {exc})"
        self.dpdk.restore(errors)
        if errors and raise_errors:
            raise self._steps.error("stop", "\n".join(errors))

    def cpu_layout(self) -> str:
        """Which CPU does what: "1 forwarding lcore(s) on cpu 1, 1 RX queue(s) per port"."""
        cpus = ",".join(str(cpu) for cpu in self.lcore_cpus)
        return (
            f"{len(self.lcore_cpus)} forwarding lcore(s) on cpu {cpus}, "
            f"{self.queues} RX queue(s) per port"
        )

    def telemetry(self) -> dict[str, str]:
        """``state``, ``cpu_layout``, ``log`` (the app's output incl. port stats), ``ip_link``."""
        process = self._process
        if process is None:
            log, state = self._stopped_log, "stopped"
        else:
            try:
                log = process.output()
                alive = "running" if process.is_running() else "exited"
            except NdrPdrError as exc:
                log, alive = f"(log unavailable: {exc})", "unknown (node unreachable)"
            state = f"{alive} pid={process.pid} file-prefix={self.file_prefix}"
        return {
            "state": f"{self.driver_name} pmd={self.pmd} cpu={self.cpu}: {state}",
            "cpu_layout": self.cpu_layout(),
            "log": bounded_log(log),
            "ip_link": self._steps.text(["ip", "-s", "-j", "link"]),
        }
