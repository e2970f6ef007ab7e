"""Open vSwitch DUT: a private OVS instance with the userspace (netdev) datapath.

Each start makes a temporary directory holding the database, sockets, pid
files and logs (OVS_RUNDIR / LOGDIR / DBDIR / SYSCONFDIR all point there),
runs ``ovsdb-server`` and ``ovs-vswitchd`` in the foreground in the DUT
namespace pinned to ``options.cpu`` (so their PIDs are known), and builds
one bridge with ``datapath_type=netdev`` and ``fail_mode=secure`` whose two
ports (AF_PACKET sockets on the DUT interfaces) get OpenFlow numbers 1 and 2.

Flows: ``l2xc`` is ``in_port=1 -> output:2`` and ``in_port=2 -> output:1``.
``ip4base`` is the same cross-connect restricted to IPv4 towards the other
port's ``routed_prefix`` and rewriting like a router: source MAC := the
egress port's MAC, destination MAC := its peer's, TTL decremented. There is
no ARP and no routing table: it is L2 forwarding with a MAC rewrite, which
is what the NDR/PDR traffic needs. Other frames are dropped (table miss).

As for the DPDK drivers, the kernel of the DUT namespace is kept from
forwarding too (ip_forward off, nft ingress drop after the taps).

Options: ``OvsOptions``.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable

from ndrpdr.access.base import BackgroundProcess, NodeAccess
from ndrpdr.access.processlog import LOG_TAIL_LINES, log_tail
from ndrpdr.drivers import DriverDescription, option, read_options
from ndrpdr.dut.base import DutDriver, DutError, DutTestConfig
from ndrpdr.dut.handsoff import KernelHandsOff
from ndrpdr.dut.health import check_process
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.ports import check_ports_exist, port_names
from ndrpdr.dut.process import effective_cpu, pinned, stop_noting
from ndrpdr.errors import NdrPdrError
from ndrpdr.systemtools import first_line, require
from ndrpdr.topology.model import Node

#: The bridge's name (a tap device of that name appears in the DUT namespace).
BRIDGE = "ndrpdr-br"
SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"


def ovs_flows(config: DutTestConfig) -> list[str]:
    """The OpenFlow rules (ovs-ofctl syntax) for ``config``: port 1 <-> port 2."""
    if config.mode == "l2xc":
        return ["in_port=1,actions=output:2", "in_port=2,actions=output:1"]
    flows: list[str] = []
    for in_port, out_port, egress in ((1, 2, config.ports[1]), (2, 1, config.ports[0])):
        actions = [f"mod_dl_src:{egress.mac}"] if egress.mac else []
        actions += [f"mod_dl_dst:{egress.peer_mac}", "dec_ttl", f"output:{out_port}"]
        flows.append(
            f"priority=100,ip,in_port={in_port},nw_dst={egress.routed_prefix},"
            f"actions={','.join(actions)}"
        )
    return flows


@dataclasses.dataclass(frozen=True)
class OvsOptions:
    """The ovs driver's options."""

    cpu: int = option(
        1,
        "CPU the OVS daemons run on, modulo the node's CPU count; unset on this "
        "machine: this CPU unless another run holds it, else one no run holds",
        minimum=0,
    )
    start_timeout_s: float = option(
        30.0, "how long start waits for OVS to come up [s]", minimum=0, exclusive_minimum=True
    )
    schema: str = option(SCHEMA, "the OVSDB schema file")


class OvsDriver(DutDriver):
    """Private ovsdb-server + ovs-vswitchd (netdev datapath) in the DUT namespace."""

    driver_name = "ovs"

    def __init__(self, node: Node, access: NodeAccess) -> None:
        """Check the options; no I/O."""
        self._node = node
        self._steps = NodeSteps(node.key, self.driver_name, access)
        self.options = read_options(OvsOptions, node.options, self._steps.option_error)
        self.cpu_option = self.options.cpu
        #: The CPU in use (``cpu_option`` modulo the node's CPU count, set by start).
        self.cpu = self.cpu_option
        self.start_timeout_s = self.options.start_timeout_s
        self.schema = self.options.schema
        self._config: DutTestConfig | None = None
        self._names: tuple[str, str] | None = None
        self._dir: str | None = None
        self._db: BackgroundProcess | None = None
        self._switch: BackgroundProcess | None = None
        self._kernel: KernelHandsOff | None = None
        self._logs: dict[str, str] = {}

    @property
    def node(self) -> str:
        """The node key."""
        return self._node.key

    @property
    def pids(self) -> tuple[int, ...]:
        """PIDs of the running daemons (ovsdb-server, ovs-vswitchd)."""
        return tuple(p.pid for p in (self._db, self._switch) if p is not None)

    # -- contract ------------------------------------------------------------------
    def configure(self, config: DutTestConfig) -> None:
        """Check ``config`` and keep it; if running, replace the flows now."""
        names = port_names(self.node, self.driver_name, config)
        check_ports_exist(self._steps, config.ports)
        running = self._switch is not None
        if running and names != self._names:
            self.stop()
        self._config, self._names = config, names
        if running and self._switch is not None:
            self._set_flows(config)
        elif running:
            self.start()

    def start(self) -> None:
        """Start both daemons, build the bridge, install the flows (undone on failure)."""
        if self._config is None or self._names is None:
            raise self._steps.error("start", "configure() was not called")
        if self._switch is not None:
            return
        try:
            self._start(self._config, self._names)
        except BaseException:
            self._cleanup(raise_errors=False)
            raise

    def health_check(self) -> None:
        """DutError unless both daemons run (not exited, not stopped) and the flows are there."""
        if self._switch is None or self._db is None:
            raise self._steps.error("health check", "OVS is not running")
        self._check_daemons()
        try:
            text = self._steps.output(
                "health check", ["ovs-ofctl", "dump-flows", self._mgmt()], env=self._env()
            )
        except DutError:
            self._check_daemons()  # a daemon that died meanwhile says more than ovs-ofctl
            raise
        flows = [line for line in text.splitlines() if "actions=" in line]
        if self._config is not None and len(flows) < len(ovs_flows(self._config)):
            raise self._steps.error("health check", f"flows missing on {BRIDGE}:\n{text}")

    def stop(self) -> None:
        """Delete the bridge, stop both daemons by PID, restore the ports, remove the dir."""
        self._cleanup(raise_errors=True)

    def telemetry(self) -> dict[str, str]:
        """Port and flow counters, datapath flows, both daemons' logs, ``ip -s -j link``."""
        steps = self._steps
        out = {"state": self._state(), "ip_link": steps.text(["ip", "-s", "-j", "link"])}
        if self._switch is not None and self._dir is not None:
            env = self._env()
            out["ovs_ports"] = steps.text(["ovs-ofctl", "dump-ports", self._mgmt()], env=env)
            out["ovs_flows"] = steps.text(["ovs-ofctl", "dump-flows", self._mgmt()], env=env)
            out["dpctl_flows"] = steps.text(
                ["ovs-appctl", "-t", f"{self._dir}/ovs-vswitchd.ctl", "dpctl/dump-flows"], env=env
            )
            self._read_logs()
        out.update(self._logs)
        return out

    # -- helpers -------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        assert self._dir is not None
        keys = ("OVS_RUNDIR", "OVS_LOGDIR", "OVS_DBDIR", "OVS_SYSCONFDIR")
        return dict.fromkeys(keys, self._dir)

    def _db_url(self) -> str:
        return f"unix:{self._dir}/db.sock"

    def _mgmt(self) -> str:
        return f"unix:{self._dir}/{BRIDGE}.mgmt"

    def _vsctl(self, step: str, *args: str, check: bool = True) -> None:
        argv = ["ovs-vsctl", f"--db={self._db_url()}", "--timeout=20", *args]
        self._steps.run(step, argv, env=self._env(), check=check, timeout_s=30.0)

    def _start(self, config: DutTestConfig, names: tuple[str, str]) -> None:
        steps = self._steps
        require("ovs-vswitchd", steps.access, fail=functools.partial(steps.error, "start"))
        self.cpu = effective_cpu(steps, self.cpu_option)
        self._kernel = KernelHandsOff(steps, names)
        self._kernel.apply()
        self._dir = steps.output("make the OVS dir", ["mktemp", "-d", "/tmp/ndrpdr-ovs-XXXXXX"])
        self._dir = self._dir.strip()
        directory, env, pin = self._dir, self._env(), pinned(self.cpu)
        steps.run(
            "create the OVS database",
            ["ovsdb-tool", "create", f"{directory}/conf.db", self.schema],
            env=env,
        )
        self._db = steps.start("start ovsdb-server", [
            *pin, "ovsdb-server", f"--remote=punix:{directory}/db.sock",
            f"--unixctl={directory}/ovsdb-server.ctl", f"--pidfile={directory}/ovsdb-server.pid",
            f"--log-file={directory}/ovsdb-server.log", f"{directory}/conf.db",
        ], env=env)  # fmt: skip
        db = self._db
        self._retry(
            "wait for ovsdb-server",
            db,
            lambda: self._vsctl("wait for ovsdb-server", "--no-wait", "init"),
        )
        self._switch = steps.start("start ovs-vswitchd", [
            *pin, "ovs-vswitchd", self._db_url(), f"--unixctl={directory}/ovs-vswitchd.ctl",
            f"--pidfile={directory}/ovs-vswitchd.pid", f"--log-file={directory}/ovs-vswitchd.log",
        ], env=env)  # fmt: skip
        first, second = names
        try:
            self._vsctl(
                "create the bridge and ports",
                "add-br", BRIDGE, "--", "set", "bridge", BRIDGE, "datapath_type=netdev",
                "fail_mode=secure",
                "--", "add-port", BRIDGE, first, "--", "set", "interface", first,
                "ofport_request=1",
                "--", "add-port", BRIDGE, second, "--", "set", "interface", second,
                "ofport_request=2",
            )  # fmt: skip
        except DutError as exc:
            if self._switch.is_running():
                raise
            raise self._steps.error(
                "start ovs-vswitchd",
                f"ovs-vswitchd exited; log tail:\n{log_tail(self._switch.output())}",
            ) from exc
        self._set_flows(config)
        self.health_check()

    def _set_flows(self, config: DutTestConfig) -> None:
        env = self._env()
        self._steps.run("delete flows", ["ovs-ofctl", "del-flows", self._mgmt()], env=env)
        for flow in ovs_flows(config):
            self._steps.run(
                f"add flow {flow}", ["ovs-ofctl", "add-flow", self._mgmt(), flow], env=env
            )

    def _retry(self, step: str, process: BackgroundProcess, action: Callable[[], None]) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while True:
            try:
                action()
                return
            except DutError as exc:
                if not process.is_running():
                    raise self._steps.error(
                        step, f"the daemon exited; log tail:\n{log_tail(process.output())}"
                    ) from exc
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.1)

    def _check_daemons(self) -> None:
        for name, process in (("ovsdb-server", self._db), ("ovs-vswitchd", self._switch)):
            if process is not None:
                log = functools.partial(self._log_tail, name, process)
                check_process(self._steps.error, name, process, self._steps.access, log=log)

    def _log_tail(self, name: str, process: BackgroundProcess) -> str:
        """The end of a daemon's log file and of its output, for an error message."""
        path = f"{self._dir}/{name}.log"
        text = self._steps.text(["tail", "-n", str(LOG_TAIL_LINES), "--", path])
        return f"{path}:\n{log_tail(text)}\noutput:\n{log_tail(process.output())}"

    def _read_logs(self) -> None:
        if self._dir is None:
            return
        for name in ("ovsdb-server", "ovs-vswitchd"):
            try:
                data = self._steps.access.get_file(f"{self._dir}/{name}.log", sudo=True)
            except NdrPdrError:
                continue
            self._logs[f"{name}_log"] = data.decode(errors="replace")

    def _state(self) -> str:
        if self._switch is None:
            return "ovs netdev datapath: stopped"
        alive = ", ".join(
            f"{name} pid={p.pid} {'running' if p.is_running() else 'exited'}"
            for name, p in (("ovsdb-server", self._db), ("ovs-vswitchd", self._switch))
            if p is not None
        )
        mode = self._config.mode if self._config else "-"
        return f"ovs netdev datapath mode={mode} cpu={self.cpu} dir={self._dir}: {alive}"

    def _cleanup(self, *, raise_errors: bool) -> None:
        errors: list[str] = []
        switch, db = self._switch, self._db
        if switch is not None and switch.is_running() and db is not None and db.is_running():
            try:
                self._vsctl("delete the bridge", "--if-exists", "del-br", BRIDGE, check=False)
            except DutError as exc:
                errors.append(str(exc))
        self._read_logs()
        self._switch = self._db = None
        for name, process in (("ovs-vswitchd", switch), ("ovsdb-server", db)):
            if process is None:
                continue
            stop_noting(process, 9.0, f"{name} pid {process.pid}", errors)
            self._logs.setdefault(f"{name}_log", process.output())
        kernel, self._kernel = self._kernel, None
        if kernel is not None:
            kernel.restore(errors)
        directory, self._dir = self._dir, None
        if directory is not None:
            self._steps.undo(errors, "remove the OVS dir", ["rm", "-rf", "--", directory])
        if errors and raise_errors:
            raise self._steps.error("stop", "\n".join(errors))


def ovs_version(node: Node, access: NodeAccess) -> str | None:
    """``Open vSwitch <version>``, as ``ovs-vswitchd --version`` says it (the version probe)."""
    line = first_line(access, ["ovs-vswitchd", "--version"])
    if line is None:
        return None
    return line.replace("ovs-vswitchd (Open vSwitch)", "Open vSwitch").strip()


DESCRIPTION = DriverDescription(
    name="ovs",
    role="DUT",
    summary="Open vSwitch, userspace (netdev) datapath, in the DUT namespace",
    options=OvsOptions,
    factory=OvsDriver,
    access=("netns",),
    port_driver=lambda node: "af_packet",
    version=ovs_version,
)
