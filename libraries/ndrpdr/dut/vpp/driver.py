"""VPP DUT (the lab driver): startup.conf, the service, forwarding set up through vppctl.

``configure`` renders the test's startup.conf (``testplan``) and writes it
on the node; ``start`` (re)starts VPP: ``systemctl restart <unit>``
(``options.service: systemd``, the default) or ``<binary> -c
<startup_conf>`` in the background (``service: direct``, ``process``).
``health_check`` waits until ``vppctl show version`` answers, after each
start sets up the forwarding (the family's set-up, its plugins checked
first; the time it took is in telemetry, ``setup_time``), then checks the
ports (``health``). ``stop`` stops the service or ends the process;
startup.conf stays. ``telemetry`` keeps VPP's CLI texts, log tail and
startup.conf. Every node command runs through the node's access as root
and every failure is a DutError naming the node, the step and the command
(``cli``). vpp_papi is not used: it needs VPP's API socket on the machine it
runs on, while vppctl through the node access reaches any node.

Ports on the node's Linux interfaces (``port_kind`` af_packet, af_xdp,
dpdk_vdev, memif) make VPP a process of the run, started and ended by the
driver; what that process leaves on the node, and its lifecycle, are in
``ndrpdr.dut.vpp.localrun``. vppctl calls are ``ndrpdr.dut.vpp.cli``; the
ports' queues and the CPU layout ``ndrpdr.dut.vpp.layout``; VPP as a running
program (started, waited for, found dead or frozen, ended)
``ndrpdr.dut.vpp.process``.
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Callable

from ndrpdr.access.base import BackgroundProcess, NodeAccess
from ndrpdr.access.processlog import bounded_log, log_tail
from ndrpdr.drivers import DriverDescription, Software
from ndrpdr.dut.accel import Prepared
from ndrpdr.dut.base import DutDriver, DutError, DutTestConfig
from ndrpdr.dut.guest.plan import VHOST_INTERFACES, GuestPlan
from ndrpdr.dut.guest.run import GuestRun, wait_vhost_up
from ndrpdr.dut.health import check_process
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.vpp import afpacket as vpp_afpacket
from ndrpdr.dut.vpp import family as vpp_family
from ndrpdr.dut.vpp.cli import VppCli, vpp_installed_version, vpp_version
from ndrpdr.dut.vpp.config import VppOptions, parse_options
from ndrpdr.dut.vpp.health import PortHealth
from ndrpdr.dut.vpp.layout import cpu_layout, port_driver, thread_plan
from ndrpdr.dut.vpp.localrun import LocalRun
from ndrpdr.dut.vpp.nodefacts import NodeFacts
from ndrpdr.dut.vpp.peer import PeerPlan, PeerVpp, peer_telemetry, start_peer
from ndrpdr.dut.vpp.process import VppService
from ndrpdr.dut.vpp.testplan import TestPlan, plan_test, write_startup_conf
from ndrpdr.topology.model import Node


class VppDriver(DutDriver):
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
        self._applied = False
        #: Ports on Linux interfaces: VPP is a process of the run (None: a lab VPP).
        self._run = (
            LocalRun(self._steps, node, self.options) if self.options.port_kind != "dpdk" else None
        )
        self._paths = self._run.paths if self._run is not None else None
        self._file_prefix = self._run.file_prefix if self._run is not None else None
        paths, options = self._paths, self.options
        #: Where startup.conf is written, VPP's CLI socket and its log file on the node.
        self.startup_conf_path = paths.startup_conf if paths else options.startup_conf
        self.cli_socket = paths.cli_socket if paths else options.cli_socket
        self.log_file = paths.log_file if paths else options.log_file
        #: Ports on Linux interfaces: the run directory on the node (None for a lab VPP).
        self.run_dir = paths.run_dir if paths else None
        self._cli = VppCli(self._steps, options, socket=self.cli_socket, log_file=self.log_file)
        self._port_health = PortHealth(self._steps, self._cli.argv)  # no ports yet
        #: The family's second VPP (memif families) and its CPUs, queues and memory.
        self._peer: PeerVpp | None = None
        self._peer_plan: PeerPlan | None = None
        #: The family's guest over vhost-user (vhost families) and its plan.
        self._guest: GuestRun | None = None
        self._guest_plan: GuestPlan | None = None
        #: The family's device as prepared last (``ndrpdr.dut.accel``).
        self._prepared = Prepared()
        #: What happened to VPP that a result should say (a restart after it died).
        self.notes: list[str] = []
        self._vpp = VppService(
            self._steps, options, self._cli, startup_conf=self.startup_conf_path,
            of_the_run=paths is not None, after_end=self._xdp_off, notes=self.notes,
            clock=clock, sleep=sleep,
        )  # fmt: skip
        self.facts = NodeFacts(node.key, access)  # memory, SMT; the test's scalings

    @property
    def node(self) -> str:
        """The node key."""
        return self._node.key

    @property
    def _vdev(self) -> bool:
        """True with dpdk_vdev ports (DPDK's virtual devices on the node's Linux interfaces)."""
        return self.options.port_kind == "dpdk_vdev"

    @property
    def startup_conf_text(self) -> str:
        """The startup.conf last written ("" before configure)."""
        return self._conf_text

    @property
    def cli(self) -> tuple[str, ...]:
        """The vppctl commands that set up the configured forwarding."""
        return tuple(self._commands)

    @property
    def pid(self) -> int | None:
        """PID of the VPP the driver started (None: not started, or a systemd service)."""
        process = self._vpp.process
        return process.pid if process is not None else None

    @property
    def peer(self) -> PeerVpp | None:
        """The family's second VPP while a memif family's test runs (else None)."""
        return self._peer

    # -- contract ------------------------------------------------------------------
    def configure(self, config: DutTestConfig) -> None:
        """Check ``config``, write startup.conf; if VPP runs, restart it and set up forwarding.

        af_packet ports: a running VPP is restarted only when the startup.conf
        changes; else the previous test's interfaces go and the new ones come.
        dpdk_vdev ports: VPP opens them at its start, so each test has its own VPP.
        """
        plan = plan_test(  # the node's memory and SMT (read once) size startup.conf
            self._steps, self._node, self.options, config, paths=self._paths,
            file_prefix=self._file_prefix, memory=self.facts.memory, smt=self.facts.smt,
        )  # fmt: skip
        self.facts.report(plan.scaled)
        text, commands, queues, undo = plan.text, plan.commands, plan.queues, plan.undo
        self._peer_plan, self._guest_plan = plan.peer, plan.guest
        self._port_health = PortHealth(
            self._steps, self._cli.argv, plan.names, config.ports, on_linux=self._paths is not None
        )
        self._stop_peer()
        if plan.hardware is not None:  # its sections (DSA's work queues) are known after it
            text += "".join(f"{line}\n" for line in self._prepare_hardware(plan))
        keep = False
        if self._paths is not None and self._vpp.running and not self._vdev:
            if not self._vpp.alive_now():  # it died since the last test: once more, saying so
                self._vpp.note_death()
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
        if self._run is not None:  # a local run: its teardown after a crash removes them too
            self._run.track()
        write_startup_conf(self._steps, self.startup_conf_path, text)
        self._config, self._conf_text, self._commands = config, text, commands
        self._queues, self._undo = queues, undo
        if self._vpp.running:
            self._restart()
            self._ready()

    def start(self) -> None:
        """Start VPP with the written startup.conf (the forwarding follows in health_check)."""
        if self._config is None:
            raise self._steps.error("start", "configure() was not called")
        process = self._vpp.process
        if self._vpp.running and (process is None or self._steps.process_running("start", process)):
            return
        if self._run is not None:  # the node's kernel must not forward on VPP's ports
            self._run.hands_off(self._config)
            if self._vpp.running:  # it died since the last test: once more, saying so
                self._vpp.note_death()
        self._restart()

    def health_check(self) -> None:
        """Wait until vppctl answers; the first time after a start, set up the forwarding."""
        if not self._vpp.running:
            raise self._steps.error("health check", "vpp is not running")
        process = self._vpp.process
        if process is not None and self._applied:  # exited or stopped: say so before vppctl
            check_process(
                self._steps.error,
                self.options.binary,
                process,
                self._steps.access,
                log=lambda: "\n".join(
                    (
                        log_tail(self._steps.process_output("health check", process)),
                        self._cli.logs(),
                    )
                ),
            )
        self._ready()
        self._port_health.check()  # a host link down, a VPP port down, a wedged TX ring

    def stop(self) -> None:
        """Stop VPP (systemctl stop, or end the process); idempotent.

        af_packet / af_xdp ports: only the test's interfaces go; VPP runs on (``close`` ends
        it). dpdk_vdev ports: VPP ends, and the XDP program DPDK's af_xdp left goes too.
        """
        self._stop_peer()
        frozen = self._vpp.frozen()
        if frozen is not None:  # no vppctl can reach it: end it, the next start is a fresh one
            self.notes.append(f"{frozen}: ended it instead of removing its interfaces")
            process = self._forget_process()
            assert process is not None  # frozen() found it
            self._vpp.end(process)
            self._xdp_off("stop")
            return
        if self._paths is not None and not self._vdev:
            if self._vpp.running and self._vpp.alive_now():
                self._remove_interfaces("stop")
            return
        if not self._vpp.running:
            return
        process = self._forget_process()
        if process is None:
            self._vpp.stop_unit()
            return
        self._vpp.end(process)
        self._xdp_off("stop")

    def close(self) -> None:
        """End a VPP of the run by PID and remove everything of it (idempotent).

        Ports on Linux interfaces: the process, the kernel hands-off, the run
        directory and the shared-memory API segment (dpdk_vdev: also DPDK's
        runtime directory); a lab VPP: the same as ``stop``.
        """
        if self._run is None:
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
                self._vpp.end(process)
            except DutError as exc:
                errors.append(str(exc))
        self._run.remove(errors)
        if errors:
            raise self._steps.error("close", "\n".join(errors))

    def telemetry(self) -> dict[str, str]:
        """CLI texts by name (while running), VPP's state, log tail and startup.conf."""
        out: dict[str, str] = {"state": self._state()}
        if self.notes:
            out["notes"] = "\n".join(self.notes)
        if self._setup_time is not None:
            count, seconds = self._setup_time
            out["setup_time"] = f"{count} vppctl commands in {seconds:.3f} s"
        frozen = self._vpp.frozen()
        if frozen is not None:  # vppctl would wait out its timeout per command
            out["cli"] = f"not asked: {frozen}"
        elif self._vpp.running and (self._paths is None or self._vpp.alive_now()):
            out.update(self._cli.telemetry(vdev=self._vdev))
        out.update(peer_telemetry(self._peer, self._peer_plan))
        if self._guest is not None:
            out.update(self._guest.telemetry())
        out["log"] = self._cli.log_text(200)
        if self.options.service == "direct":
            out["output"] = bounded_log(self._vpp.output())
        out["startup_conf"] = self._conf_text
        if self._config is not None:
            out["cpu_layout"] = self.cpu_layout()
        out.update(self.facts.telemetry())
        return out

    def run_cli(self, command: str) -> str:
        """Run one CLI command on the running VPP and return its output.

        DutError when vppctl fails or VPP answers with an error (the message
        quotes VPP's own line, e.g. "set interface state: unknown interface").
        """
        if not self._vpp.running:
            raise self._steps.error(f"cli `{command}`", "vpp is not running")
        return self._cli.run(f"cli `{command}`", command)

    # -- steps ---------------------------------------------------------------------
    def _restart(self) -> None:
        """(Re)start VPP; the forwarding must be set up again afterwards."""
        self._applied = False
        self._vpp.restart()

    def _ready(self) -> None:
        self._vpp.wait_for_cli()
        if not self._applied:
            self._apply()
            self._applied = True

    def _forget_process(self) -> BackgroundProcess | None:
        """The VPP process started here (None: a systemd one), taken off the driver: not
        running, nothing applied (the caller ends it)."""
        self._applied = False
        return self._vpp.forget()

    def _remove_interfaces(self, step: str) -> None:
        """af_packet ports: delete the test's interfaces (VPP keeps running)."""
        config = self._config
        if config is None or not self._applied:
            return
        self._applied = False
        for command in self._undo:
            self._cli.run(f"{step}: undo the family's set-up", command)
        for command in vpp_afpacket.delete_commands(config, self.options.port_kind):
            self._cli.run(f"{step}: remove the test's interfaces", command)
        self._xdp_off(step)

    def _xdp_off(self, step: str) -> None:
        """af_xdp ports: detach the XDP program VPP left (``LocalRun.xdp_off``)."""
        if self._run is not None:
            self._run.xdp_off(step, self._config)

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
        began = self._clock()
        script = posixpath.join(
            posixpath.dirname(self.startup_conf_path), f"ndrpdr-{self.node}-setup.vpp"
        )
        if self._cli.set_up(step, config, self._commands, vdev=self._vdev, script=script):
            self._vpp.wait_for_cli()  # vppctl exec ends quietly when VPP dies during the script
        if self._peer_plan is not None:  # CPUs of its own (``peerthreads``)
            show_memif = self._cli.run("second vpp: find the memif socket", "show memif")
            commands, options = vpp_family.peer_commands(config), self.options
            self._peer = start_peer(
                self._steps, options.binary, options.vppctl, self._peer_plan, commands, show_memif
            )
        if self._guest_plan is not None:  # CPUs of its own; VPP, the client, connects to it
            self._guest = GuestRun(self._steps, self._guest_plan, sleep=self._sleep)
            self._guest.start()
            step = "guest: wait for the vhost-user interfaces"
            down = wait_vhost_up(lambda command: self._cli.run(step, command), VHOST_INTERFACES,
                                 sleep=self._sleep, clock=self._clock)  # fmt: skip
            if down:
                raise self._steps.error(
                    step, f"{', '.join(down)} not up (guest pid {self._guest.pid})"
                )
        self._setup_time = (len(self._commands), self._clock() - began)
        settle_s = 0.0 if family is None or family.vpp is None else family.vpp.settle_s
        if settle_s > 0:  # frames VPP sends of its own after the set-up (IPv6: MLD reports)
            self._sleep(settle_s)

    def _prepare_hardware(self, plan: TestPlan) -> list[str]:
        """Set the family's device up (``ndrpdr.dut.accel``), VPP stopped first; its lines."""
        need = plan.hardware
        assert need is not None
        stop = self.stop if self._vpp.running else lambda: None
        return self._prepared.lines(
            need, self._node, plan.workers, stop,
            lambda step, argv: self._steps.output(f"prepare {need.what}: {step}", argv),
        )  # fmt: skip

    def _stop_peer(self) -> None:
        """End the family's second VPP and its guest, whichever runs."""
        peer, self._peer = self._peer, None
        guest, self._guest = self._guest, None
        if guest is not None:
            guest.stop()
        if peer is not None:
            peer.stop()

    # -- helpers -------------------------------------------------------------------
    def _state(self) -> str:
        if not self._vpp.running:
            return self._vpp.state("")
        config = self._config
        if config is None or not self._applied:
            doing = ", forwarding not set up yet"
        else:
            kind = f" on {self.options.port_kind} ports" if self._paths is not None else ""
            doing = f", {config.mode}{kind}, {self.cpu_layout(config)}"
        return self._vpp.state(doing)

    def cpu_layout(self, config: DutTestConfig | None = None) -> str:
        """Which CPU does what (``layout.cpu_layout``), for ``config`` (default: the configured
        test); "" before configure."""
        config = config or self._config
        return "" if config is None else cpu_layout(self._node, self.options, config, self._queues)


#: The VPP releases the driver is written and checked against (its CLI commands, startup.conf).
SUPPORTED_VPP = ("v26.06",)

DESCRIPTION = DriverDescription(
    name="vpp",
    role="DUT",
    summary="FD.io VPP (DPDK plugin on the NICs or on virtual devices of Linux interfaces, "
    "or its af_packet / af_xdp plugin on those), "
    "configured through startup.conf and vppctl",
    options=VppOptions,
    factory=VppDriver,
    access=("ssh", "labbox", "local", "netns"),
    port_driver=port_driver,
    threads=thread_plan,
    version=vpp_version,
    software=Software(
        name="VPP", supported=SUPPORTED_VPP, installed=vpp_installed_version, option="binary"
    ),
    family_setup="vpp",
)
