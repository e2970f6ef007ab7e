"""What the user-space DUT drivers share: steps on a node, kernel hands-off, DPDK EAL bits.

A user-space data plane (DPDK testpmd or l3fwd, OVS's netdev datapath)
reads the DUT ports through AF_PACKET / AF_XDP sockets. The kernel of the
DUT namespace must then not forward the same frames too: ``KernelHandsOff``
turns IPv4 forwarding off and installs an nftables netdev-ingress drop on
the ports (taps run before the ingress hook, so the data plane still sees
every frame) and undoes both afterwards, re-setting what a stopped DPDK
application leaves behind (links down or PROMISC, an XDP program).

``NodeSteps`` runs every command through the node's NodeAccess and turns
any failure into a DutError naming the node, the driver, the step and the
command's output tail. ``DpdkAppDriver`` is the lifecycle both DPDK
drivers share (EAL arguments, one process pinned to the DUT CPU, a unique
``--file-prefix``, wait for the "forwarding" line, SIGINT by PID, cleanup).

Nothing here assumes the node is this machine: every command, file and
process goes through the NodeAccess (local, netns or SSH), and a process
handle whose node cannot be reached (an SSH connection lost) turns into a
DutError or a telemetry line, never a transport error.
"""

from __future__ import annotations

import abc
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ndrpdr.access.base import BackgroundProcess, CommandResult, NodeAccess
from ndrpdr.drivers import read_options
from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.dut.dpdk_options import DpdkAppOptions
from ndrpdr.dut.health import check_process
from ndrpdr.dut.processlog import bounded_log, log_tail
from ndrpdr.errors import NdrPdrError
from ndrpdr.testbed.model import Node

#: Interface names the drivers accept (they end up in devargs, nft rules, OVS commands).
_IFNAME = re.compile(r"^[A-Za-z0-9_.-]{1,15}$")
#: The nftables table of the kernel sink in the DUT namespace.
SINK_TABLE = "ndrpdr_dut_sink"
#: Where DPDK keeps a process's runtime files (sockets, config) by file prefix.
DPDK_RUNTIME_ROOT = "/var/run/dpdk"


class NodeSteps:
    """Commands on one node; every failure becomes a DutError naming node, driver and step."""

    def __init__(self, node: str, driver: str, access: NodeAccess) -> None:
        """``node``: key for messages; ``driver``: driver name; ``access``: the node's transport."""
        self.node = node
        self.driver = driver
        self.access = access

    def option_error(self, field: str, detail: str) -> DutError:
        """A DutError "NODE (driver): options.FIELD: detail" (for ``read_options``)."""
        return DutError(f"{self.node} ({self.driver}): options.{field}: {detail}")

    def error(self, step: str, detail: str) -> DutError:
        """A DutError "NODE (driver): step: detail"."""
        prefix = f"{self.node}: "
        detail = detail[len(prefix) :] if detail.startswith(prefix) else detail
        return DutError(f"{self.node} ({self.driver}): {step}: {detail}")

    def run(
        self,
        step: str,
        argv: Sequence[str],
        *,
        timeout_s: float = 30.0,
        check: bool = True,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run ``argv``; a failed command (when ``check``) or unreachable node raises DutError."""
        try:
            return self.access.run(
                argv, timeout_s=timeout_s, check=check, stdin=stdin, env=env, sudo=True
            )
        except NdrPdrError as exc:
            raise self.error(step, str(exc)) from exc

    def output(self, step: str, argv: Sequence[str], **kwargs: Any) -> str:
        """The stdout of ``argv`` (run as in ``run``)."""
        return self.run(step, argv, **kwargs).stdout

    def start(
        self, step: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None
    ) -> BackgroundProcess:
        """Start ``argv`` in the background (DutError if it cannot be started)."""
        try:
            return self.access.start(argv, env=env, sudo=True)
        except NdrPdrError as exc:
            raise self.error(step, str(exc)) from exc

    def process_output(self, step: str, process: BackgroundProcess) -> str:
        """The log of ``process`` so far (DutError when the node cannot be reached)."""
        try:
            return process.output()
        except NdrPdrError as exc:
            raise self.error(step, f"cannot read the log of pid {process.pid}: {exc}") from exc

    def process_running(self, step: str, process: BackgroundProcess) -> bool:
        """True while ``process`` runs (DutError when the node cannot be reached)."""
        try:
            return process.is_running()
        except NdrPdrError as exc:
            raise self.error(step, f"cannot tell whether pid {process.pid} runs: {exc}") from exc

    def text(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> str:
        """For telemetry: the stdout of ``argv``, or a line saying why there is none (no raise)."""
        try:
            result = self.access.run(argv, timeout_s=15.0, check=False, env=env, sudo=True)
        except NdrPdrError as exc:
            return f"unavailable: {exc}"
        if result.exit_code != 0:
            return f"unavailable: {result.command} exited {result.exit_code}: {result.stderr}"
        return result.stdout


def port_names(node: str, driver: str, config: DutTestConfig) -> tuple[str, str]:
    """The OS interface names of the two ports, checked (DutError names the bad port)."""
    names: list[str] = []
    for index, port in enumerate(config.ports):
        if port.name is None:
            raise DutError(
                f"{node} ({driver}): configure: ports[{index}] ({port.key}) has no interface "
                "name; this driver needs the OS interface name of each port"
            )
        if not _IFNAME.match(port.name):
            raise DutError(
                f"{node} ({driver}): configure: ports[{index}] ({port.key}) interface name "
                f"{port.name!r} is not a plain interface name (letters, digits, _ . -, "
                "at most 15 characters)"
            )
        names.append(port.name)
    if names[0] == names[1]:
        raise DutError(f"{node} ({driver}): configure: both ports are {names[0]!r}")
    return names[0], names[1]


def check_ports_exist(steps: NodeSteps, ports: Sequence[DutPort]) -> None:
    """DutError naming the first port whose interface does not exist on the node."""
    for port in ports:
        assert port.name is not None
        steps.run(f"check port {port.key} ({port.name})", ["ip", "link", "show", "dev", port.name])


def effective_cpu(steps: NodeSteps, cpu: int) -> int:
    """``cpu`` modulo the node's CPU count (as the local testbed maps ``options.cpu`` for RPS)."""
    text = steps.output("count CPUs", ["nproc", "--all"]).strip()
    count = int(text) if text.isdigit() and int(text) > 0 else 1
    return cpu % count


def sink_ruleset(names: Sequence[str]) -> str:
    """The nftables ruleset that drops every frame at netdev ingress of ``names``."""
    lines = [f"table netdev {SINK_TABLE} {{"]
    for index, name in enumerate(names):
        lines.append(
            f'  chain in{index} {{ type filter hook ingress device "{name}" priority 0; '
            "policy accept; counter drop; }"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


class KernelHandsOff:
    """Keep the DUT namespace's kernel from forwarding what a user-space plane forwards."""

    def __init__(self, steps: NodeSteps, names: Sequence[str], *, xdp: bool = False) -> None:
        """``names``: the DUT port interfaces; ``xdp``: also detach XDP programs on restore."""
        self._steps = steps
        self._names = tuple(names)
        self._xdp = xdp
        self._forwarding: str | None = None
        self._sink = False

    def apply(self) -> None:
        """IPv4 forwarding off (remembering its value), links up, the nft ingress drop in place."""
        steps = self._steps
        value = steps.output("read ip_forward", ["sysctl", "-n", "net.ipv4.ip_forward"]).strip()
        self._forwarding = value or "0"
        steps.run("turn kernel forwarding off", ["sysctl", "-qw", "net.ipv4.ip_forward=0"])
        for name in self._names:
            steps.run(f"set {name} up", ["ip", "link", "set", "dev", name, "up"])
        steps.run(
            "remove a stale kernel sink",
            ["nft", "delete", "table", "netdev", SINK_TABLE],
            check=False,
        )
        steps.run(
            "add the kernel sink (nft netdev ingress drop)",
            ["nft", "-f", "-"],
            stdin=sink_ruleset(self._names),
        )
        self._sink = True

    def restore(self, errors: list[str]) -> None:
        """Undo ``apply`` and what a stopped DPDK app breaks; failures go to ``errors``."""
        steps = self._steps
        actions: list[tuple[str, list[str]]] = []
        if self._sink:
            actions.append(
                ("remove the kernel sink", ["nft", "delete", "table", "netdev", SINK_TABLE])
            )
        for name in self._names:
            if self._xdp:
                actions.append(
                    (f"detach XDP from {name}", ["ip", "link", "set", "dev", name, "xdp", "off"])
                )
            actions.append(
                (
                    f"set {name} up, promisc off",
                    ["ip", "link", "set", "dev", name, "up", "promisc", "off"],
                )
            )
        if self._forwarding is not None:
            actions.append(
                ("restore ip_forward", ["sysctl", "-qw", f"net.ipv4.ip_forward={self._forwarding}"])
            )
        for step, argv in actions:
            try:
                steps.run(step, argv)
            except DutError as exc:
                errors.append(str(exc))
        self._sink = False
        self._forwarding = None


# -- DPDK ------------------------------------------------------------------------------

#: AF_PACKET ring size [frames]; the 512 default overflows on scheduling hiccups.
AF_PACKET_FRAMECNT = 16384


def new_file_prefix(node: str) -> str:
    """A DPDK ``--file-prefix`` unique to one run of one node."""
    safe = re.sub(r"[^a-z0-9]", "", node.lower()) or "dut"
    return f"ndrpdr-{safe}-{secrets.token_hex(4)}"


def vdev_args(pmd: str, names: Sequence[str]) -> list[str]:
    """``--vdev`` arguments: one AF_PACKET or AF_XDP virtual port per interface, in order."""
    args: list[str] = []
    for index, name in enumerate(names):
        if pmd == "af_packet":
            spec = f"net_af_packet{index},iface={name},framecnt={AF_PACKET_FRAMECNT}"
        else:
            spec = f"net_af_xdp{index},iface={name}"
        args += ["--vdev", spec]
    return args


def eal_args(
    lcores: str,
    prefix: str,
    memory_mb: int,
    vdevs: Sequence[str],
    *,
    pci_addresses: Sequence[str] = (),
    hugepages: bool = False,
) -> list[str]:
    """EAL arguments: ``lcores`` mapping, ``memory_mb`` of memory.

    By default no PCI device (``--no-pci``) and no hugepages (``--no-huge``);
    ``pci_addresses`` allows just those devices (``-a``), ``hugepages``
    takes the memory from hugepages.
    """
    devices = [arg for address in pci_addresses for arg in ("-a", address)] or ["--no-pci"]
    memory = [] if hugepages else ["--no-huge"]
    return [
        "--lcores", lcores, *devices, "--file-prefix", prefix,
        *memory, "-m", str(memory_mb), *vdevs,
    ]  # fmt: skip


class DpdkAppDriver(abc.ABC):
    """Lifecycle of a DPDK application DUT on AF_PACKET / AF_XDP vdevs (testpmd, l3fwd)."""

    #: Driver name, used in messages.
    driver_name: str = "dpdk"
    #: Default binary (overridden by options.binary).
    default_binary: str = ""
    #: The application is forwarding once its log matches this.
    ready_pattern: re.Pattern[str] = re.compile(r"$^")
    #: The driver's options dataclass.
    options_class: type[DpdkAppOptions] = DpdkAppOptions

    def __init__(self, node: Node, access: NodeAccess) -> None:
        """Read and check the options; no I/O."""
        self._node = node
        self._steps = NodeSteps(node.key, self.driver_name, access)
        self.options = read_options(self.options_class, node.options, self._steps.option_error)
        self.cpu_option = self.options.cpu
        #: The CPU in use (``cpu_option`` modulo the node's CPU count, set by start).
        self.cpu = self.cpu_option
        self.pmd = self.options.pmd
        self.binary = self.options.binary or self.default_binary
        self.memory_mb = self.options.memory_mb
        self.extra_args = self.options.extra_args
        self.start_timeout_s = self.options.start_timeout_s
        self._config: DutTestConfig | None = None
        #: What names each port to the app: interface names (vdevs) or PCI addresses.
        self._names: tuple[str, str] | None = None
        self._process: BackgroundProcess | None = None
        self._kernel: KernelHandsOff | None = None
        self._prefix: str | None = None
        self._node_set_up = False
        self._stopped_log = ""

    @property
    def node(self) -> str:
        """The node key."""
        return self._node.key

    @property
    def file_prefix(self) -> str | None:
        """The ``--file-prefix`` of the running process (None when stopped)."""
        return self._prefix

    @property
    def pid(self) -> int | None:
        """PID of the running application (None when not started)."""
        return self._process.pid if self._process is not None else None

    # -- driver-specific -----------------------------------------------------------
    def _check_config(self, config: DutTestConfig) -> None:  # noqa: B027 - optional hook
        """Driver-specific checks of a configuration (raise DutError)."""

    @abc.abstractmethod
    def _app_argv(self, config: DutTestConfig, names: tuple[str, str], prefix: str) -> list[str]:
        """The full command line after the CPU pinning (binary, EAL args, app args)."""

    def _prepare(self) -> None:  # noqa: B027 - optional hook
        """Anything to do on the node before the first start (build the binary...)."""

    @property
    def uses_kernel_ports(self) -> bool:
        """True when the app reads kernel interfaces (AF_PACKET / AF_XDP vdevs).

        The kernel is then kept from forwarding on them (``KernelHandsOff``).
        """
        return True

    def _port_devices(self, config: DutTestConfig) -> tuple[str, str]:
        """How the app names the two ports (checked, no I/O): the interface names by default."""
        return port_names(self.node, self.driver_name, config)

    def _check_ports(self, config: DutTestConfig, devices: tuple[str, str]) -> None:
        """DutError unless the ports exist on the node (``ip link show`` by default)."""
        check_ports_exist(self._steps, config.ports)

    def _setup_node(self) -> None:  # noqa: B027 - optional hook
        """Node set-up before each start (NIC binding, hugepages...); undone by _restore_node."""

    def _restore_node(self, prefix: str | None, errors: list[str]) -> None:  # noqa: B027
        """Undo ``_setup_node`` after a stop (``prefix``: the stopped app's file prefix)."""

    # -- contract ------------------------------------------------------------------
    def configure(self, config: DutTestConfig) -> None:
        """Check ``config`` (port names, that the ports exist) and keep it; restart if running."""
        names = self._port_devices(config)
        self._check_config(config)
        self._check_ports(config, names)
        running = self._process is not None
        if running:
            self.stop()
        self._config, self._names = config, names
        if running:
            self.start()

    def start(self) -> None:
        """Sets the node up, hands the ports to the app, starts it and waits until it forwards."""
        if self._config is None or self._names is None:
            raise self._steps.error("start", "configure() was not called")
        if self._process is not None:
            return
        self._prepare()
        self.cpu = effective_cpu(self._steps, self.cpu_option)
        try:
            self._node_set_up = True
            self._setup_node()
            if self.uses_kernel_ports:
                self._kernel = KernelHandsOff(self._steps, self._names, xdp=self.pmd == "af_xdp")
                self._kernel.apply()
            self._prefix = new_file_prefix(self.node)
            track = getattr(self._steps.access, "track_path", None)
            if callable(track):  # a local run: its crash cleanup removes the runtime dir too
                track(f"{DPDK_RUNTIME_ROOT}/{self._prefix}")
            argv = ["taskset", "-c", str(self.cpu), "stdbuf", "-oL", "-eL"]
            argv += self._app_argv(self._config, self._names, self._prefix)
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
                    f"start {self.driver_name}",
                    f"{self.binary} exited before forwarding; log tail:\n{log_tail(log)}",
                )
            if time.monotonic() > deadline:
                raise self._steps.error(
                    f"start {self.driver_name}",
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
        """SIGINT the app by PID (escalating), restore the ports, remove its runtime dir."""
        self._cleanup(raise_errors=True)

    def _cleanup(self, *, raise_errors: bool) -> None:
        errors: list[str] = []
        process, self._process = self._process, None
        if process is not None:
            try:
                process.stop(15.0)
            except NdrPdrError as exc:
                errors.append(f"stop pid {process.pid}: {exc}")
            except OSError as exc:
                errors.append(f"stop pid {process.pid}: {exc}")
            try:
                self._stopped_log = process.output()
            except NdrPdrError as exc:
                self._stopped_log = f"(log unavailable: {exc})"
        kernel, self._kernel = self._kernel, None
        if kernel is not None:
            kernel.restore(errors)
        prefix, self._prefix = self._prefix, None
        if self._node_set_up:
            self._node_set_up = False
            self._restore_node(prefix, errors)
        if prefix is not None:
            _guard(
                errors,
                lambda: self._steps.run(
                    "remove the DPDK runtime dir",
                    ["rm", "-rf", "--", f"{DPDK_RUNTIME_ROOT}/{prefix}"],
                ),
            )
        if errors and raise_errors:
            raise self._steps.error("stop", "\n".join(errors))

    def telemetry(self) -> dict[str, str]:
        """``state``, ``log`` (the app's output incl. port stats) and ``ip_link``."""
        process = self._process
        if process is None:
            log, state = self._stopped_log, "stopped"
        else:
            try:
                log = process.output()
                alive = "running" if process.is_running() else "exited"
            except NdrPdrError as exc:
                log, alive = f"(log unavailable: {exc})", "unknown (node unreachable)"
            state = f"{alive} pid={process.pid} file-prefix={self._prefix}"
        return {
            "state": f"{self.driver_name} pmd={self.pmd} cpu={self.cpu}: {state}",
            "log": bounded_log(log),
            "ip_link": self._steps.text(["ip", "-s", "-j", "link"]),
        }


def _guard(errors: list[str], action: Callable[[], object]) -> None:
    try:
        action()
    except DutError as exc:
        errors.append(str(exc))
