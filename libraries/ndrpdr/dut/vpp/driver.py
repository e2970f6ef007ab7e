"""VPP DUT (the lab driver): startup.conf, the service, forwarding set up through vppctl.

``configure`` checks the test configuration, renders startup.conf
(``ndrpdr.dut.vpp.config``) and writes it to ``options.startup_conf`` on
the node. ``start`` (re)starts VPP: ``systemctl restart <unit>``
(``options.service: systemd``, the default) or ``<binary> -c <startup_conf>``
as a background process of the node access (``service: direct``).
``health_check`` waits, up to ``options.start_timeout_s``, until
``vppctl show version`` answers; after each start it then sets up the
forwarding with one vppctl call per command: the test family's set-up
(``ndrpdr.families``; first ``show plugins`` must list every plugin the
family needs, else a DutError names the family and the plugin: VPP itself
ignores a plugin file it cannot find), or without a family the basic
ip4base / l2xc set-up. The time the set-up took is in telemetry
(``setup_time``); a family whose set-up makes VPP send frames of its own
(IPv6: MLD reports) is waited for (``settle_s``). ``stop`` stops the service
(or ends the process) and restores nothing else: startup.conf stays as
written. ``telemetry`` keeps the texts of ``show runtime``, ``show
errors``, ``show interface`` and ``show hardware``, the end of VPP's log
and the startup.conf in use.

Every node command is an argument vector run as root through the node's
NodeAccess; every failure is a DutError naming the node, the step, the
command, its exit code and the tail of its output. vppctl prints a failed
command's error on stdout and may exit 0, so its output is checked too
(``vpp_config.cli_error``).

VPP's Python API (vpp_papi) is not used: it talks to VPP's API socket on
the machine it runs on, while the node may be remote; vppctl through the
node access works on any node.

With ``port_kind: af_packet`` (``ndrpdr.dut.vpp.afpacket``) the ports are
the node's Linux interfaces and VPP is one process of the run, started by
the driver (``service: direct``) in its own run directory, and kept for
every test of the suite: ``start`` starts it once (again only when the
test's startup.conf differs, or once more, with a warning holding its log
tail, when it died), ``stop`` deletes the test's af_packet interfaces
(and with them its addresses, neighbours, routes, cross-connects) but
leaves VPP running (the family's ``undo_commands`` run first: ACLs,
classify tables, bridge domains, host routes would outlive the
interfaces), and ``close`` (the testbed's teardown) stops it by PID
and removes the run directory, its shared-memory API segment and the
kernel hands-off of the ports (``KernelHandsOff``: the node's kernel must
not forward what VPP forwards). Each test begins with VPP's counters
cleared, so the telemetry is that test's.

With ``port_kind: dpdk_vdev`` (``ndrpdr.dut.vpp.vdev``) the same Linux
interfaces are DPDK virtual devices of VPP's DPDK plugin, written into the
``dpdk`` section by the lab's writer (``ndrpdr.dut.vpp.dpdk``). They exist
from VPP's start, so each test starts its own VPP in the run directory and
``stop`` ends it; before the set-up ``show hardware`` must show them as
DPDK ports on the test's interfaces, and telemetry adds ``show dpdk
version`` (its EAL arguments name each port's DPDK driver).
"""

from __future__ import annotations

import functools
import logging
import posixpath
import secrets
import shlex
import time
from collections.abc import Callable

from ndrpdr.access.base import BackgroundProcess, CommandResult, NodeAccess, tail
from ndrpdr.access.processlog import LOG_TAIL_LINES, bounded_log, log_tail
from ndrpdr.access.procstate import describe_exit, stopped_text
from ndrpdr.drivers import DriverDescription
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.dpdk.eal import DPDK_RUNTIME_ROOT, new_file_prefix
from ndrpdr.dut.handsoff import KernelHandsOff, xdp_off_argv
from ndrpdr.dut.health import check_process, process_state
from ndrpdr.dut.netqueues import rx_queue_count
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.ports import check_ports_exist
from ndrpdr.dut.vpp import afpacket as vpp_afpacket
from ndrpdr.dut.vpp import family as vpp_family
from ndrpdr.dut.vpp import vdev as vpp_vdev
from ndrpdr.dut.vpp.config import (
    VppOptions,
    cli_error,
    family_plugins,
    forwarding_commands,
    interface_name,
    main_core,
    parse_options,
    plugin_file,
    rx_queues,
    startup_conf,
    uio_driver,
    worker_cores,
)
from ndrpdr.dut.vpp.peer import PeerVpp, memif_socket
from ndrpdr.dut.vpp.queues import rx_placement_commands
from ndrpdr.errors import NdrPdrError
from ndrpdr.systemtools import require
from ndrpdr.testbed.model import Node

_log = logging.getLogger(__name__)

#: Pause between two ``vppctl show version`` attempts while VPP starts [s].
POLL_INTERVAL_S = 1.0
#: The same for a VPP of the run on af_packet ports (it answers within about 0.2 s) [s].
AF_PACKET_POLL_INTERVAL_S = 0.1
#: How many times a VPP of the run that died is started again before a start fails.
MAX_RESTARTS = 1
#: Commands that zero VPP's counters, so that a test's telemetry is its own.
CLEAR_COMMANDS: tuple[str, ...] = (
    "clear runtime",
    "clear errors",
    "clear interfaces",
    "clear hardware-interfaces",
)
#: Time limit of one vppctl call [s].
VPPCTL_TIMEOUT_S = 30.0
#: The CLI texts telemetry keeps, by name.
TELEMETRY_COMMANDS: tuple[tuple[str, str], ...] = (
    ("show_runtime", "show runtime"),
    ("show_errors", "show errors"),
    ("show_interface", "show interface"),
    ("show_hardware", "show hardware"),
    ("show_threads", "show threads"),
    ("show_rx_placement", "show interface rx-placement"),
)


class VppDriver:
    """VPP on a lab DUT, driven through the node access with systemctl and vppctl."""

    driver_name = "vpp"
    #: A health check is a vppctl call (~10 ms): at most one a second between trials.
    health_interval_s = 1.0

    def __init__(
        self,
        node: Node,
        access: NodeAccess,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Read and check the options (DutError names ``nodes.<key>.options.<field>``); no I/O.

        ``sleep`` and ``clock`` pace the start-up wait (tests pass fakes).
        """
        self._node = node
        self._steps = NodeSteps(node.key, self.driver_name, access)
        self.options: VppOptions = parse_options(node)
        self._sleep = sleep
        self._clock = clock
        self._config: DutTestConfig | None = None
        self._conf_text = ""
        self._commands: list[str] = []
        #: RX queues of each port in the configured test.
        self._queues: tuple[int, int] = (1, 1)
        #: What the family's set-up leaves that outlives the interfaces (run before they go).
        self._undo: list[str] = []
        #: The last set-up: (vppctl commands, seconds they took), for telemetry.
        self._setup_time: tuple[int, float] | None = None
        self._running = False
        self._applied = False
        self._process: BackgroundProcess | None = None
        self._stopped_log = ""
        #: Ports on Linux interfaces: the run directory (None: a lab VPP with the options' paths).
        self._paths = (
            vpp_afpacket.run_paths(node, self.options, secrets.token_hex(4))
            if self.options.port_kind != "dpdk"
            else None
        )
        #: dpdk_vdev ports: DPDK's ``file-prefix`` of the run (its /var/run/dpdk directory).
        self._file_prefix = new_file_prefix(node.key) if self._vdev else None
        self._kernel: KernelHandsOff | None = None
        self._dir_made = False
        self._restarts = 0
        #: The family's second VPP (memif families) and how long the last set-up took [s].
        self._peer: PeerVpp | None = None
        #: What happened to VPP that a result should say (a restart after it died).
        self.notes: list[str] = []

    @property
    def node(self) -> str:
        """The node key."""
        return self._node.key

    @property
    def _vdev(self) -> bool:
        """True with dpdk_vdev ports (DPDK's virtual devices on the node's Linux interfaces)."""
        return self.options.port_kind == "dpdk_vdev"

    @property
    def _xdp(self) -> bool:
        """True when the ports are read through AF_XDP (VPP's af_xdp plugin or DPDK's PMD)."""
        kind = self.options.port_kind
        return kind == "af_xdp" or (kind == "dpdk_vdev" and self.options.vdev == "af_xdp")

    @property
    def startup_conf_text(self) -> str:
        """The startup.conf last written ("" before configure)."""
        return self._conf_text

    @property
    def cli(self) -> tuple[str, ...]:
        """The vppctl commands that set up the configured forwarding."""
        return tuple(self._commands)

    @property
    def run_dir(self) -> str | None:
        """Ports on Linux interfaces: the run directory on the node (None for a lab VPP)."""
        return self._paths.run_dir if self._paths is not None else None

    @property
    def pid(self) -> int | None:
        """PID of the VPP the driver started (None: not started, or a systemd service)."""
        return self._process.pid if self._process is not None else None

    @property
    def peer(self) -> PeerVpp | None:
        """The family's second VPP while a memif family's test runs (else None)."""
        return self._peer

    @property
    def startup_conf_path(self) -> str:
        """Where startup.conf is written on the node."""
        return self._paths.startup_conf if self._paths is not None else self.options.startup_conf

    @property
    def cli_socket(self) -> str:
        """VPP's CLI socket on the node."""
        return self._paths.cli_socket if self._paths is not None else self.options.cli_socket

    @property
    def log_file(self) -> str:
        """VPP's log file on the node."""
        return self._paths.log_file if self._paths is not None else self.options.log_file

    # -- contract ------------------------------------------------------------------
    def configure(self, config: DutTestConfig) -> None:
        """Check ``config``, write startup.conf; if VPP runs, restart it and set up forwarding.

        af_packet ports: a running VPP is restarted only when the startup.conf
        changes; else the previous test's interfaces go and the new ones come.
        dpdk_vdev ports: VPP opens them at its start, so each test has its own VPP.
        """
        if self._vdev:
            text, names, queues = self._vdev_conf(config)
            commands = [*forwarding_commands(config, names), *self._placement(config, names)]
        elif self._paths is not None:
            text = vpp_afpacket.startup_conf(self._node, config, self.options, self._paths)
            names = [vpp_afpacket.host_interface(port) for port in config.ports]
            workers = worker_cores(self._node, config, self.options)
            check_ports_exist(self._steps, config.ports)
            queues = self._port_queues(config, workers)
            create = vpp_afpacket.create_commands(
                config,
                self.options.rx_mode,
                self.options.port_kind,
                workers=len(workers),
                rx_queues=queues,
            )
            commands = [*CLEAR_COMMANDS, *create, *forwarding_commands(config, names)]
        else:
            text = startup_conf(self._node, config, self.options)
            names = [interface_name(port) for port in config.ports]
            commands = [*forwarding_commands(config), *self._placement(config, names)]
            wanted = rx_queues(self.options, worker_cores(self._node, config, self.options))
            queues = (wanted, wanted)
        undo = _undo_commands(config, names)
        text += vpp_family.startup_section(config)
        self._stop_peer()
        keep = False
        if self._paths is not None and self._running and not self._vdev:
            if not self._alive_now():  # it died since the last test: once more, saying so
                self._note_death()
            else:  # a family that leaves tunnels, SAs, memifs... needs a fresh VPP
                fresh = vpp_family.needs_fresh_vpp(self._config) or vpp_family.needs_fresh_vpp(
                    config
                )
                keep = text == self._conf_text and not fresh
        if keep:
            self._remove_interfaces("configure")
            self._config, self._commands, self._undo = config, commands, undo
            self._queues = queues
            self._ready()
            return
        self._write_startup_conf(text)
        self._config, self._conf_text, self._commands = config, text, commands
        self._queues, self._undo = queues, undo
        if self._running:
            self._restart()
            self._ready()

    def start(self) -> None:
        """Start VPP with the written startup.conf (the forwarding follows in health_check)."""
        if self._config is None:
            raise self._steps.error("start", "configure() was not called")
        if self._running and (
            self._process is None or self._steps.process_running("start", self._process)
        ):
            return
        if self._paths is not None:
            self._hands_off()
            if self._running:  # it died since the last test: once more, saying so
                self._note_death()
        self._restart()

    def health_check(self) -> None:
        """Wait until vppctl answers; the first time after a start, set up the forwarding."""
        if not self._running:
            raise self._steps.error("health check", "vpp is not running")
        process = self._process
        if process is not None and self._applied:  # exited or stopped: say so before vppctl
            check_process(
                self._steps.error,
                self.options.binary,
                process,
                self._steps.access,
                log=lambda: "\n".join(
                    (log_tail(self._steps.process_output("health check", process)), self._logs())
                ),
            )
        self._ready()

    def stop(self) -> None:
        """Stop VPP (systemctl stop, or end the process); idempotent.

        af_packet / af_xdp ports: only the test's interfaces go; VPP runs on (``close`` ends
        it). dpdk_vdev ports: VPP ends, and the XDP program DPDK's af_xdp left goes too.
        """
        self._stop_peer()
        frozen = self._frozen()
        if frozen is not None:  # no vppctl can reach it: end it, the next start is a fresh one
            self.notes.append(f"{frozen}: ended it instead of removing its interfaces")
            process = self._forget_process()
            assert process is not None  # _frozen() found it
            self._end(process)
            self._xdp_off("stop")
            return
        if self._paths is not None and not self._vdev:
            if self._running and self._alive_now():
                self._remove_interfaces("stop")
            return
        if not self._running:
            return
        process = self._forget_process()
        if process is None:
            argv = ["systemctl", "stop", self.options.systemd_unit]
            self._steps.run("stop", argv, timeout_s=120.0)
            return
        self._end(process)
        self._xdp_off("stop")

    def close(self) -> None:
        """End a VPP of the run by PID and remove everything of it (idempotent).

        Ports on Linux interfaces: the process, the kernel hands-off, the run
        directory and the shared-memory API segment (dpdk_vdev: also DPDK's
        runtime directory); a lab VPP: the same as ``stop``.
        """
        if self._paths is None:
            self.stop()
            return
        errors: list[str] = []
        try:
            self._stop_peer()
        except DutError as exc:
            errors.append(str(exc))
        process = self._forget_process()
        if process is not None:
            try:
                self._end(process)
            except DutError as exc:
                errors.append(str(exc))
        kernel, self._kernel = self._kernel, None
        if kernel is not None:
            kernel.restore(errors)
        if self._dir_made:
            paths = self._paths
            for step, argv in (
                ("remove the run directory", ["rm", "-rf", "--", paths.run_dir]),
                (
                    "remove the API segment",
                    ["sh", "-c", 'rm -f -- /dev/shm/"$1"-*', "sh", paths.prefix],
                ),
                *self._dpdk_dir_removal(),
            ):
                self._steps.undo(errors, f"close: {step}", argv)
            self._dir_made = False
        if errors:
            raise self._steps.error("close", "\n".join(errors))

    def _dpdk_dir_removal(self) -> list[tuple[str, list[str]]]:
        """dpdk_vdev ports: the step that removes DPDK's runtime directory of the run."""
        if self._file_prefix is None:
            return []
        path = f"{DPDK_RUNTIME_ROOT}/{self._file_prefix}"
        return [("remove the DPDK runtime directory", ["rm", "-rf", "--", path])]

    def telemetry(self) -> dict[str, str]:
        """CLI texts by name (while running), VPP's state, log tail and startup.conf."""
        out: dict[str, str] = {"state": self._state()}
        if self.notes:
            out["notes"] = "\n".join(self.notes)
        if self._setup_time is not None:
            count, seconds = self._setup_time
            out["setup_time"] = f"{count} vppctl commands in {seconds:.3f} s"
        frozen = self._frozen()
        if frozen is not None:  # vppctl would wait out its timeout per command
            out["cli"] = f"not asked: {frozen}"
        elif self._running and (self._paths is None or self._alive_now()):
            for name, command in TELEMETRY_COMMANDS:
                out[name] = bounded_log(self._steps.text(self._vppctl_argv(command)))
            if self._vdev:  # its EAL arguments name DPDK's driver of each port (--vdev)
                out["show_dpdk_version"] = self._steps.text(self._vppctl_argv("show dpdk version"))
        if self._peer is not None:
            out.update(self._peer.telemetry())
        out["log"] = self._log_text(200)
        if self.options.service == "direct":
            out["output"] = bounded_log(self._process_text())
        out["startup_conf"] = self._conf_text
        if self._config is not None:
            out["cpu_layout"] = self.cpu_layout()
        return out

    def run_cli(self, command: str) -> str:
        """Run one CLI command on the running VPP and return its output.

        DutError when vppctl fails or VPP answers with an error (the message
        quotes VPP's own line, e.g. "set interface state: unknown interface").
        """
        if not self._running:
            raise self._steps.error(f"cli `{command}`", "vpp is not running")
        return self._vppctl(f"cli `{command}`", command)

    # -- steps ---------------------------------------------------------------------
    def _write_startup_conf(self, text: str) -> None:
        path = self.startup_conf_path
        if self._paths is not None and not self._dir_made:
            # a local run: its teardown after a crash removes them too
            self._steps.track_path(self._paths.run_dir)
            for segment in ("global_vm", "vpe-api"):
                self._steps.track_path(f"/dev/shm/{self._paths.prefix}-{segment}")
            if self._file_prefix is not None:
                self._steps.track_path(f"{DPDK_RUNTIME_ROOT}/{self._file_prefix}")
            self._dir_made = True
        self._steps.run(
            "configure: create the startup.conf directory",
            ["mkdir", "-p", "--", posixpath.dirname(path)],
        )
        try:
            self._steps.access.put_file(text.encode(), path, mode=0o644, sudo=True)
        except NdrPdrError as exc:
            raise self._steps.error(f"configure: write {path}", str(exc)) from exc

    def _restart(self) -> None:
        """(Re)start VPP; the forwarding must be set up again afterwards."""
        self._applied = False
        options = self.options
        if options.service == "direct":
            process, self._process = self._process, None
            self._running = False
            if process is not None:
                self._end(process)
                self._xdp_off("start")  # a VPP that ends leaves its XDP program attached
            fail = functools.partial(self._steps.error, "start")
            require("vpp", self._steps.access, binary=options.binary, fail=fail)
            argv = [options.binary, "-c", self.startup_conf_path]
            self._process = self._steps.start("start", argv)
            self._running = True
            return
        argv = ["systemctl", "restart", options.systemd_unit]
        try:
            self._steps.run("start", argv, timeout_s=120.0)
        except DutError as exc:
            self._running = False
            raise DutError(f"{exc}\n{self._logs()}") from exc
        self._running = True

    def _ready(self) -> None:
        self._wait_for_cli()
        if not self._applied:
            self._apply()
            self._applied = True

    def _forget_process(self) -> BackgroundProcess | None:
        """The VPP process started here (None: a systemd one), taken off the driver: not
        running, nothing applied (the caller ends it)."""
        process, self._process = self._process, None
        self._running = self._applied = False
        return process

    def _frozen(self) -> str | None:
        """What a VPP started here that is stopped by a signal is (None: it is not)."""
        process = self._process
        if not self._running or process is None:
            return None
        stopped = stopped_text(process_state(process, self._steps.access))
        return (
            None if stopped is None else f"{self.options.binary} (pid {process.pid}) is {stopped}"
        )

    def _alive_now(self) -> bool:
        """True when the VPP the driver started still runs (a systemd VPP: when started)."""
        process = self._process
        return self._running and (
            process is None or self._steps.process_running("health check", process)
        )

    def _hands_off(self) -> None:
        """Ports on Linux interfaces: keep the node's kernel from forwarding on them (once per
        run)."""
        if self._kernel is not None:
            return
        assert self._config is not None
        names = [str(port.name) for port in self._config.ports if port.memif_socket is None]
        kernel = KernelHandsOff(self._steps, names, xdp=self._xdp)
        self._kernel = kernel
        kernel.apply()

    def _note_death(self) -> None:
        """A VPP of the run died: note it with its log tail, or fail if it already restarted."""
        process = self._process
        assert process is not None
        try:
            code = process.stop(2.0)
        except (NdrPdrError, OSError):
            code = None
        self._stopped_log = self._steps.process_output("start", process)
        what = (
            f"{self.options.binary} (pid {process.pid}) had exited, {describe_exit(code)}; "
            f"its output:\n{log_tail(self._stopped_log) or '(empty)'}\n{self._logs()}"
        )
        if self._restarts >= MAX_RESTARTS:
            self._process, self._running = None, False
            raise self._steps.error(
                "start", f"{what}\nnot started again: it was restarted {self._restarts} time(s)"
            )
        self._restarts += 1
        note = f"{self.node}: VPP restarted: {what}"
        self.notes.append(note)
        _log.warning("%s", note)

    def _remove_interfaces(self, step: str) -> None:
        """af_packet ports: delete the test's interfaces (VPP keeps running)."""
        config = self._config
        if config is None or not self._applied:
            return
        self._applied = False
        for command in self._undo:
            self._vppctl(f"{step}: undo the family's set-up", command)
        for command in vpp_afpacket.delete_commands(config, self.options.port_kind):
            self._vppctl(f"{step}: remove the test's interfaces", command)
        self._xdp_off(step)

    def _xdp_off(self, step: str) -> None:
        """af_xdp ports: detach the XDP program VPP's libxdp left on the node's interfaces.

        VPP deletes its AF_XDP sockets, not the program; left attached it
        would take the next user's frames. At close the kernel hands-off
        (``KernelHandsOff(xdp=True)``) detaches it, also after a VPP died.
        """
        if not self._xdp or self._config is None:
            return
        for port in self._config.ports:
            name = str(port.name)
            self._steps.run(f"{step}: detach XDP from {name}", xdp_off_argv(name))

    def _vppctl(self, step: str, command: str) -> str:
        """Run one CLI command; a failed exit or an error VPP printed raises DutError."""
        result = self._steps.run(
            step, self._vppctl_argv(command), timeout_s=VPPCTL_TIMEOUT_S, check=False
        )
        said = cli_error(command, result.stdout + "\n" + result.stderr)
        if result.exit_code != 0 or said is not None:
            reason = f"VPP says: {said}; " if said is not None else ""
            raise self._steps.error(step, f"{reason}{_describe(result)}")
        return result.stdout

    def _wait_for_cli(self) -> None:
        """Poll ``vppctl show version`` until it answers or ``start_timeout_s`` passes."""
        timeout_s = self.options.start_timeout_s
        deadline = self._clock() + timeout_s
        argv = self._vppctl_argv("show version")
        attempts = 0
        last = ""
        while True:
            process = self._process
            if process is not None and not self._steps.process_running("health check", process):
                self._stopped_log = self._steps.process_output("health check", process)
                raise self._steps.error(
                    "health check",
                    f"{self.options.binary} (pid {process.pid}) has exited; its output:\n"
                    f"{log_tail(self._stopped_log)}\n{self._logs()}",
                )
            attempts += 1
            try:
                result = self._steps.run(
                    "health check", argv, timeout_s=min(VPPCTL_TIMEOUT_S, timeout_s), check=False
                )
            except DutError as exc:  # vppctl hung or the node did not answer: try again
                last = str(exc.__cause__ or exc)
            else:
                if result.exit_code == 0 and "vpp v" in result.stdout:
                    return
                last = _describe(result)
            now = self._clock()
            if now >= deadline:
                break
            interval = POLL_INTERVAL_S if self._paths is None else AF_PACKET_POLL_INTERVAL_S
            self._sleep(min(interval, deadline - now))
        raise self._steps.error(
            "health check",
            f"VPP did not answer within {timeout_s:g} s ({attempts} attempts); "
            f"last {last}\n{self._logs()}",
        )

    def _apply(self) -> None:
        """Check the family's plugins, run the forwarding commands (one vppctl call each, or
        one script when many), then start the family's second VPP if it has one.

        The first failure raises; the commands' count and time go to telemetry.
        Then wait the family's ``settle_s`` (frames VPP sends of its own).
        """
        config = self._config
        assert config is not None
        family = config.family
        step = f"set up {config.mode if family is None else family.family}"
        self._check_plugins(step)
        if self._vdev:
            self._check_vdev_ports(step)
        start = self._clock()
        if len(self._commands) > vpp_family.EXEC_THRESHOLD:
            self._exec(step, self._commands)
        else:
            for command in self._commands:
                self._vppctl(step, command)
        commands = vpp_family.peer_commands(config)
        if commands:
            self._start_peer(commands)
        self._setup_time = (len(self._commands), self._clock() - start)
        settle_s = 0.0 if family is None or family.vpp is None else family.vpp.settle_s
        if settle_s > 0:  # frames VPP sends of its own after the set-up (IPv6: MLD reports)
            self._sleep(settle_s)

    def _check_vdev_ports(self, step: str) -> None:
        """dpdk_vdev ports: DutError unless VPP's Ethernet0/1 are DPDK ports on the test's
        interfaces, with their MACs (``vpp_vdev.hardware_problem``)."""
        assert self._config is not None
        hardware = self._vppctl(step, "show hardware")
        problem = vpp_vdev.hardware_problem(hardware, self._config)
        if problem is not None:
            raise self._steps.error(step, f"{problem}\n{self._logs()}")

    def _check_plugins(self, step: str) -> None:
        """DutError naming the family and each plugin it needs that this VPP has not loaded."""
        assert self._config is not None
        needed = family_plugins(self._config)
        if not needed:
            return
        listed = self._vppctl(step, "show plugins")
        missing = [name for name in needed if f" {plugin_file(name)} " not in f" {listed} "]
        if not missing:
            return
        family = self._config.family
        assert family is not None
        where = ""
        for line in listed.splitlines():
            if "Plugin path is:" in line:
                where = line.split("Plugin path is:", 1)[1].split(",")[0].strip()
        files = ", ".join(str(plugin_file(name)) for name in missing)
        raise self._steps.error(
            step,
            f"family {family.family} needs the VPP plugin(s) {', '.join(missing)} ({files}), "
            f"which this VPP has not loaded: install {files} in its plugin directory"
            f"{f' ({where})' if where else ''} and check startup.conf enables it",
        )

    def _exec(self, step: str, commands: list[str]) -> None:
        """Run ``commands`` as one ``vppctl exec`` script written next to startup.conf."""
        path = posixpath.join(
            posixpath.dirname(self.startup_conf_path), f"ndrpdr-{self.node}-setup.vpp"
        )
        try:
            self._steps.access.put_file(vpp_family.script(commands), path, mode=0o644, sudo=True)
        except NdrPdrError as exc:
            raise self._steps.error(f"{step}: write {path}", str(exc)) from exc
        result = self._steps.run(
            step, self._vppctl_argv(f"exec {path}"), timeout_s=600.0, check=False
        )
        said = vpp_family.exec_error(commands, result.stdout + "\n" + result.stderr)
        if result.exit_code != 0 or said is not None:
            reason = f"VPP says: {said}; " if said is not None else ""
            raise self._steps.error(step, f"{reason}{_describe(result)}")
        self._wait_for_cli()  # vppctl exec ends quietly when VPP dies during the script

    def _start_peer(self, commands: tuple[str, ...]) -> None:
        """Start the family's second VPP, joined to the memif socket the DUT's VPP listens on."""
        socket = memif_socket(self._vppctl("second vpp: find the memif socket", "show memif"))
        self._peer = PeerVpp(
            self._steps,
            binary=self.options.binary,
            vppctl=self.options.vppctl,
            token=secrets.token_hex(4),
            cpu=self._peer_cpu(),
        )
        self._peer.start(commands, socket)

    def _peer_cpu(self) -> int:
        """The second VPP's CPU: the DUT VPP's main thread's (its workers keep theirs)."""
        config = self._config
        assert config is not None
        return main_core(self.options, worker_cores(self._node, config, self.options))

    def _stop_peer(self) -> None:
        peer, self._peer = self._peer, None
        if peer is not None:
            peer.stop()

    # -- helpers -------------------------------------------------------------------
    def _end(self, process: BackgroundProcess) -> None:
        """Stop the background VPP (SIGINT, escalating) and keep its output."""
        what = f"{self.options.binary} (pid {process.pid})"
        try:
            process.stop(15.0)
            self._stopped_log = process.output()
        except (NdrPdrError, OSError) as exc:
            raise self._steps.error("stop", f"could not end {what}: {exc}") from exc

    def _process_text(self) -> str:
        """What the background VPP printed (direct service), for telemetry (no raise)."""
        process = self._process
        if process is None:
            return self._stopped_log
        try:
            return process.output()
        except NdrPdrError as exc:
            return f"unavailable: {exc}"

    def _vppctl_argv(self, command: str) -> list[str]:
        return [self.options.vppctl, "-s", self.cli_socket, *command.split()]

    def _log_text(self, lines: int) -> str:
        argv = ["tail", "-n", str(lines), "--", self.log_file]
        return bounded_log(self._steps.text(argv))

    def _logs(self) -> str:
        """The end of VPP's log file, and of its journal (systemd) for an error message."""
        parts = [
            f"VPP log tail ({self.log_file}):\n"
            f"{log_tail(self._log_text(LOG_TAIL_LINES)) or '(empty)'}"
        ]
        if self.options.service == "systemd":
            unit = self.options.systemd_unit
            journal = self._steps.text(
                ["journalctl", "--no-pager", "-o", "cat", "-n", str(LOG_TAIL_LINES), "-u", unit]
            )
            parts.append(f"journal tail ({unit}):\n{log_tail(journal) or '(empty)'}")
        return "\n".join(parts)

    def _state(self) -> str:
        options = self.options
        how = (
            f"systemd unit {options.systemd_unit}"
            if options.service == "systemd"
            else f"{options.binary} -c {self.startup_conf_path}"
        )
        if not self._running:
            return f"vpp ({how}): stopped"
        process = self._process
        alive = ""
        if process is not None:
            try:
                alive = f" pid={process.pid}" + ("" if process.is_running() else " (exited)")
            except NdrPdrError as exc:
                alive = f" pid={process.pid} (state unknown: {exc})"
        config = self._config
        if config is None or not self._applied:
            doing = ", forwarding not set up yet"
        else:
            kind = f" on {options.port_kind} ports" if self._paths is not None else ""
            doing = f", {config.mode}{kind}, {self.cpu_layout(config)}"
        return f"vpp ({how}): running{alive}{doing}"

    def _port_queues(self, config: DutTestConfig, workers: tuple[int, ...]) -> tuple[int, int]:
        """RX queues of each port: one per worker (``rx_queues``); VPP's af_xdp: every kernel
        queue of the interface, at least as many (``ndrpdr.dut.netqueues``); DPDK's af_xdp:
        the first of them."""
        wanted = rx_queues(self.options, workers)
        if not self._xdp:
            return wanted, wanted
        counts = []
        for port in config.ports:
            count = rx_queue_count(self._steps, "configure: count RX queues", str(port.name))
            if count < wanted:
                raise UnsupportedCoresError(
                    f"{self.node} (vpp) needs {wanted} RX queues per port for {len(workers)} "
                    f"workers and {port.name} has {count} (an AF_XDP socket reads one kernel "
                    "queue)"
                )
            counts.append(count)
        if self._vdev:
            return wanted, wanted
        return counts[0], counts[1]

    def _placement(self, config: DutTestConfig, names: list[str]) -> list[str]:
        """dpdk / dpdk_vdev ports ``names``: pin each one's RX queues round robin to the workers."""
        workers = worker_cores(self._node, config, self.options)
        queues = rx_queues(self.options, workers)
        return [
            command
            for name in names
            for command in rx_placement_commands(name, queues, len(workers))
        ]

    def _vdev_conf(self, config: DutTestConfig) -> tuple[str, list[str], tuple[int, int]]:
        """dpdk_vdev ports: startup.conf, VPP's names of the ports, their RX queues."""
        assert self._paths is not None and self._file_prefix is not None
        vpp_afpacket.check_ports(self._node, config)
        check_ports_exist(self._steps, config.ports)
        first, second = self._port_queues(config, worker_cores(self._node, config, self.options))
        text = vpp_vdev.startup_conf(
            self._node,
            config,
            self.options,
            self._paths,
            file_prefix=self._file_prefix,
            queues=first,
        )
        return text, vpp_vdev.interface_names(config), (first, second)

    def cpu_layout(self, config: DutTestConfig | None = None) -> str:
        """Which CPU does what: "main thread on cpu 0, 1 worker(s) on cpu 1 (1 RX queue(s) per
        port)", for ``config`` (default: the configured test); "" before configure."""
        config = config or self._config
        if config is None:
            return ""
        workers = worker_cores(self._node, config, self.options)
        main = main_core(self.options, workers)
        if not workers:
            return f"main thread on cpu {main} forwards (no workers)"
        first, second = self._queues
        queues = f"{first}" if first == second else f"{first} and {second}"
        cpus = ",".join(str(cpu) for cpu in workers)
        return (
            f"main thread on cpu {main}, {len(workers)} worker(s) on cpu {cpus} "
            f"({queues} RX queue(s) per port)"
        )


def _undo_commands(config: DutTestConfig, names: list[str]) -> list[str]:
    """The family's lines that remove what outlives the interfaces (none without a family)."""
    family = config.family
    if family is None or family.vpp is None:
        return []
    return family.vpp.undo_commands(config, (names[0], names[1]))


def _describe(result: CommandResult) -> str:
    """The command, its exit code and the tail of its output, for an error message."""
    output = "\n".join(t.rstrip() for t in (result.stdout, result.stderr) if t.strip())
    shown = tail(output) if output else "(no output)"
    return f"`{shlex.join(result.argv)}` exited {result.exit_code}; output tail:\n{shown}"


def _port_driver(node: Node) -> str:
    """af_packet / af_xdp (VPP's plugin, or DPDK's virtual device with dpdk_vdev), or the
    node's uio_driver through which VPP's DPDK plugin takes the NICs."""
    kind = node.options.get("port_kind")
    if kind in ("af_packet", "af_xdp", "memif"):
        return str(kind)
    if kind == "dpdk_vdev":  # DPDK's poll mode driver of the virtual devices
        return str(node.options.get("vdev", VppOptions.vdev))
    try:
        return uio_driver(node) or "vfio-pci"
    except DutError:
        return "vfio-pci"


DESCRIPTION = DriverDescription(
    name="vpp",
    role="DUT",
    summary="FD.io VPP (DPDK plugin on the NICs or on virtual devices of Linux interfaces, "
    "or its af_packet / af_xdp plugin on those), "
    "configured through startup.conf and vppctl",
    options=VppOptions,
    factory=VppDriver,
    access=("ssh", "labbox", "local", "netns"),
    port_driver=_port_driver,
)
