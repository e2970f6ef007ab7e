"""A second VPP on the DUT's host, in a network namespace of its own (CSIT's "container").

The memif families chain the DUT's VPP and a second VPP over two memif
interfaces. ``PeerVpp`` runs that second VPP for one test: ``start``
makes a run directory (``/tmp/ndrpdr-vpp-peer-<token>``: startup.conf,
CLI / API / stats sockets, log) and starts ``unshare --net -- <binary> -c
startup.conf`` as a background process of the node access: VPP in a
network namespace of its own that lives and dies with it (a named one
made with ``ip netns add`` cannot be entered from a DUT that is itself in
a namespace: ``ip netns exec`` gives each command its own mount
namespace, so the name's bind mount is not seen), waits for its CLI and
runs the family's commands (``{socket}`` replaced by the DUT VPP's memif
socket path, ``{queues}`` by the memif queue count; the file system is
shared, the network is not). ``stop`` ends it by PID and removes the run
directory and its shared-memory segments (the namespace goes with the
process); every failure names the node, "peer vpp", the step and the
command.

Its startup.conf is FD.io CSIT's container's (``ContainerUtils``'
``create_base_vpp_startup_config``): ``cpu { main-core corelist-workers }``
on CPUs of its own, as many workers as the DUT's
(``ndrpdr.dut.vpp.peerthreads``), polling (no ``poll-sleep-usec``), a 2G
main heap and statistics segment with per-node counters and 215,040
buffers (scaled with the DUT's, ``ndrpdr.dut.vpp.memory.size_peer``), the
default plugins off but memif and perfmon. Its memifs have as many RX and
TX queues as the DUT's (one per DUT worker, CSIT's ``rxq_count_int``).
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
import secrets
import time
from collections.abc import Callable, Sequence

from ndrpdr.access.base import BackgroundProcess
from ndrpdr.access.processlog import bounded_log, log_tail
from ndrpdr.dut import cores
from ndrpdr.dut.base import DutError
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.smt import ThreadPlan
from ndrpdr.dut.vpp.config import cli_error
from ndrpdr.dut.vpp.memory import StartupSizing
from ndrpdr.dut.vpp.startup import api_sections, buffers_section, memory_sections, scaled_comment
from ndrpdr.results.record import PEER_THREAD_PLAN_TEXT

#: How long the second VPP may take to answer its CLI [s], and the pause between tries [s].
START_TIMEOUT_S = 20.0
POLL_S = 0.1
#: CSIT's container plugins besides memif (the default ones are off).
PLUGINS = ("memif_plugin.so", "perfmon_plugin.so")


@dataclasses.dataclass(frozen=True)
class PeerPlan:
    """What the second VPP of one test gets: its threads' CPUs, memif queues, memory."""

    threads: ThreadPlan
    queues: int
    sizing: StartupSizing

    @property
    def text(self) -> str:
        """One line for telemetry: "second VPP 1T1C: main cpu 3; workers cpu 4 ...; 1 memif
        queue(s)"."""
        return f"second VPP {self.threads.text}; {self.queues} memif queue(s) each way"


def startup_conf(run_dir: str, prefix: str, plan: PeerPlan) -> str:
    """The second VPP's startup.conf: files in ``run_dir``, CSIT's container sections."""
    threads = plan.threads
    assert threads.main is not None
    lines = [
        "# The second VPP of a memif family (FD.io CSIT's container), written by the ndrpdr "
        "vpp driver.",
        *scaled_comment(plan.sizing),
        "unix {",
        "  nodaemon",
        f"  runtime-dir {run_dir}",
        f"  cli-listen {run_dir}/cli.sock",
        "  cli-no-pager",
        f"  log {run_dir}/vpp.log",
        f"  pidfile {run_dir}/vpp.pid",
        "}",
        *api_sections(prefix, f"{run_dir}/api.sock"),
        *memory_sections(plan.sizing, f"{run_dir}/stats.sock", ip6=False),
        "cpu {",
        f"  main-core {threads.main}",
    ]
    if threads.cpus:
        lines.append(f"  corelist-workers {cores.corelist(threads.cpus)}")
    lines += ["}", *buffers_section(plan.sizing), "plugins {", "  plugin default { disable }"]
    lines += [f"  plugin {name} {{ enable }}" for name in PLUGINS]
    return "\n".join([*lines, "}", ""])


class PeerVpp:
    """The second VPP of one test (see the module docstring); ``start`` once, ``stop`` always."""

    def __init__(
        self,
        steps: NodeSteps,
        *,
        binary: str,
        vppctl: str,
        token: str,
        plan: PeerPlan,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Names only (no I/O): namespace, run directory and API prefix from ``token``."""
        self._steps = steps
        self._binary = binary
        self._vppctl = vppctl
        self.run_dir = f"/tmp/ndrpdr-vpp-peer-{token}"
        self._prefix = f"ndrpdr-vpp-peer-{token}"
        self.plan = plan
        self._sleep = sleep
        self._clock = clock
        self._process: BackgroundProcess | None = None
        self._made: list[str] = []
        self._log = ""

    @property
    def pid(self) -> int | None:
        """PID of the second VPP (None: not running)."""
        return self._process.pid if self._process is not None else None

    def start(self, commands: Sequence[str], socket: str) -> None:
        """Namespace, run directory, VPP, its CLI, then ``commands`` with ``{socket}`` and
        ``{queues}`` filled in."""
        steps = self._steps
        steps.track_path(self.run_dir)
        steps.run("peer vpp: make the run directory", ["mkdir", "-p", "--", self.run_dir])
        self._made.append("dir")
        conf = posixpath.join(self.run_dir, "startup.conf")
        try:
            text = startup_conf(self.run_dir, self._prefix, self.plan).encode()
            steps.access.put_file(text, conf, mode=0o644, sudo=True)
        except Exception as exc:
            raise steps.error(f"peer vpp: write {conf}", str(exc)) from exc
        argv = ["unshare", "--net", "--", self._binary, "-c", conf]
        self._process = steps.start("peer vpp: start", argv)
        self._wait()
        for line in commands:
            filled = line.replace("{socket}", socket).replace("{queues}", str(self.plan.queues))
            self.cli("peer vpp: set up", filled)

    def cli(self, step: str, command: str) -> str:
        """One CLI command on the second VPP; DutError quoting VPP's error line."""
        argv = [self._vppctl, "-s", f"{self.run_dir}/cli.sock", *command.split()]
        result = self._steps.run(step, argv, check=False, timeout_s=30.0)
        said = cli_error(command, result.stdout + "\n" + result.stderr)
        if result.exit_code != 0 or said is not None:
            raise self._steps.error(
                step, f"`{command}`: {said or result.stderr.strip() or 'failed'}"
            )
        return result.stdout

    def telemetry(self) -> dict[str, str]:
        """``show interface`` and ``show memif`` of the second VPP, and its log tail."""
        if self._process is None:
            return {"peer_log": log_tail(self._log)}
        sock = f"{self.run_dir}/cli.sock"
        return {
            "peer_show_interface": bounded_log(
                self._steps.text([self._vppctl, "-s", sock, "show", "interface"])
            ),
            "peer_show_memif": bounded_log(
                self._steps.text([self._vppctl, "-s", sock, "show", "memif"])
            ),
        }

    def stop(self) -> None:
        """End the second VPP by PID (its namespace goes with it); remove its files."""
        errors: list[str] = []
        process, self._process = self._process, None
        if process is not None:
            try:
                process.stop(10.0)
                self._log = process.output()
            except Exception as exc:
                errors.append(f"could not end pid {process.pid}: {exc}")
        if "dir" in self._made:
            self._steps.undo(errors, "peer vpp: remove the run directory",
                             ["rm", "-rf", "--", self.run_dir])  # fmt: skip
            self._steps.undo(
                errors,
                "peer vpp: remove the API segment",
                ["sh", "-c", 'rm -f -- /dev/shm/"$1"-*', "sh", self._prefix],
            )
        self._made = []
        if errors:
            raise self._steps.error("peer vpp: stop", "\n".join(errors))

    def _wait(self) -> None:
        deadline = self._clock() + START_TIMEOUT_S
        argv = [self._vppctl, "-s", f"{self.run_dir}/cli.sock", "show", "version"]
        last = ""
        while self._clock() < deadline:
            process = self._process
            assert process is not None
            if not self._steps.process_running("peer vpp: start", process):
                out = self._steps.process_output("peer vpp: start", process)
                raise self._steps.error(
                    "peer vpp: start",
                    f"{self._binary} (pid {process.pid}) exited:\n{log_tail(out)}",
                )
            result = self._steps.run("peer vpp: start", argv, check=False, timeout_s=5.0)
            if result.exit_code == 0 and "vpp v" in result.stdout:
                return
            last = result.stdout + result.stderr
            self._sleep(POLL_S)
        raise self._steps.error(
            "peer vpp: start", f"no CLI answer within {START_TIMEOUT_S:g} s; last: {last.strip()}"
        )


def peer_telemetry(peer: PeerVpp | None, plan: PeerPlan | None) -> dict[str, str]:
    """The running second VPP's texts (``PeerVpp.telemetry``), ``peer_cpu_layout`` (one line)
    and ``cpu_peer_threads`` (its thread plan as JSON, the record's ``peer_thread_plan``);
    none without a second VPP."""
    out = {} if peer is None else peer.telemetry()
    if plan is not None:
        out["peer_cpu_layout"] = plan.text
        out[PEER_THREAD_PLAN_TEXT] = json.dumps(plan.threads.to_json())
    return out


def memif_socket(show_memif: str) -> str:
    """The path of the DUT VPP's listening memif socket, from its ``show memif`` text.

    DutError when it lists no listening socket but the default one.
    """
    for line in show_memif.splitlines():
        words = line.split()
        if len(words) >= 3 and words[1] == "yes" and words[-1].startswith("/"):
            return words[-1]
    raise DutError(
        f"peer vpp: the DUT's VPP listens on no memif socket; `show memif`:\n{show_memif}"
    )


def start_peer(
    steps: NodeSteps,
    binary: str,
    vppctl: str,
    plan: PeerPlan,
    commands: Sequence[str],
    show_memif: str,
) -> PeerVpp:
    """Start a family's second VPP as ``plan`` says, joined to the memif socket ``show_memif``
    (the DUT VPP's) lists."""
    peer = PeerVpp(steps, binary=binary, vppctl=vppctl, token=secrets.token_hex(4), plan=plan)
    peer.start(commands, memif_socket(show_memif))
    return peer
