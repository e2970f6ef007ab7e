"""The guest of one vhost-user test as a process on the DUT's node: check, start, wait, stop.

``check_guest`` runs before anything starts: a node without the guest's
program (testpmd or VPP; for a VM QEMU, its kernel, initrd and
``/dev/kvm``) skips the test (UnsupportedFamilyError naming what is
missing). ``GuestRun.start`` makes the run directory, writes the guest's
files (a VPP guest's startup.conf and CLI script; a VM's init script),
starts the program (``ndrpdr.dut.guest.testpmd``, ``vpp``, ``qemu``) as a
background process of the node access and waits until it listens on
the first vhost-user socket (DPDK's virtio_user in server mode, like
QEMU's ``server=on`` chardevs, waits for a client on each socket in turn
before it opens the next). ``stop`` ends it by PID and removes its files;
every failure names the node, "guest", the step and the command.

``wait_vhost_up`` then waits until the DUT's VPP says both vhost-user
interfaces are up (CSIT's ``All VPP Interfaces Ready Wait``): VPP, the
client, connects to the guest's sockets on its own retries.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence

from ndrpdr.access.base import BackgroundProcess
from ndrpdr.access.processlog import log_tail
from ndrpdr.dut.base import UnsupportedFamilyError
from ndrpdr.dut.guest import qemu, testpmd, vpp
from ndrpdr.dut.guest.plan import GuestPlan
from ndrpdr.dut.nodesteps import NodeSteps

#: How long the guest may take to listen on its sockets, and VPP to connect [s].
START_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 30.0
POLL_S = 0.2
#: Where a guest's run directory goes (a VM sees it through the host's root: not /tmp).
RUN_ROOT = "/var/tmp"


def new_run_dir() -> str:
    """A run directory of a guest's own."""
    return f"{RUN_ROOT}/ndrpdr-guest-{secrets.token_hex(4)}"


def missing(steps: NodeSteps, plan: GuestPlan) -> list[str]:
    """What the node lacks for ``plan``'s guest (empty: nothing)."""
    lacking: list[str] = []
    found = steps.run(
        "guest: find its program",
        ["sh", "-c", 'command -v -- "$1" >/dev/null', "sh", plan.program],
        check=False,
    )
    if found.exit_code != 0:
        lacking.append(f"{plan.program} (not found on the node)")
    image = plan.qemu
    if image is not None:
        for what, path in (
            ("QEMU", image.binary), ("the VM's kernel", image.kernel),
            ("the VM's initrd", image.initrd), ("KVM", "/dev/kvm"),
        ):  # fmt: skip
            if steps.run("guest: check the VM", ["test", "-e", path], check=False).exit_code:
                lacking.append(f"{what} {path}")
    return lacking


def check_guest(steps: NodeSteps, plan: GuestPlan) -> None:
    """UnsupportedFamilyError (a skip) naming what the node lacks for the guest."""
    lacking = missing(steps, plan)
    if lacking:
        raise UnsupportedFamilyError(
            f"{steps.node} (vpp): the guest of a vhost-user family ({plan.vnf}) needs "
            f"{', '.join(lacking)}"
        )


def guest_argv(plan: GuestPlan) -> list[str]:
    """The guest's command line: the VM, the VPP stand-in or the testpmd stand-in."""
    if plan.qemu is not None:
        return qemu.argv(plan)
    return vpp.argv(plan) if plan.is_vpp else testpmd.stand_in_argv(plan)


def guest_files(plan: GuestPlan) -> dict[str, tuple[str, int]]:
    """The files the guest reads, by path: (text, mode)."""
    run = plan.run_dir
    files: dict[str, tuple[str, int]] = {}
    if plan.is_vpp:
        conf = qemu.vm_startup_conf(plan) if plan.qemu else vpp.startup_conf(plan)
        files[f"{run}/guest-startup.conf"] = (conf, 0o644)
        files[f"{run}/guest-running.exec"] = (vpp.exec_script(plan), 0o644)
    if plan.qemu is not None:
        files[qemu.init_path(plan)] = (qemu.init_script(plan), 0o755)
    return files


class GuestRun:
    """The guest of one test (see the module docstring); ``start`` once, ``stop`` always."""

    def __init__(
        self,
        steps: NodeSteps,
        plan: GuestPlan,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Names only (no I/O)."""
        self._steps = steps
        self.plan = plan
        self._sleep = sleep
        self._clock = clock
        self._process: BackgroundProcess | None = None
        self._made = False
        self._log = ""

    @property
    def pid(self) -> int | None:
        """PID of the guest (None: not running)."""
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Run directory, files, the program; then wait until it listens (first socket)."""
        steps, run = self._steps, self.plan.run_dir
        steps.track_path(run)
        steps.run("guest: make the run directory", ["mkdir", "-p", "--", run])
        self._made = True
        for path, (text, mode) in guest_files(self.plan).items():
            try:
                steps.access.put_file(text.encode(), path, mode=mode, sudo=True)
            except Exception as exc:
                raise steps.error(f"guest: write {path}", str(exc)) from exc
        self._process = steps.start(f"guest: start {self.plan.vnf}", guest_argv(self.plan))
        self._wait_listening()

    def _wait_listening(self) -> None:
        step = "guest: wait for its vhost-user sockets"
        deadline = self._clock() + START_TIMEOUT_S
        argv = ["test", "-S", self.plan.sockets[0]]  # the second listens once the first is met
        while True:
            process = self._process
            assert process is not None
            if not self._steps.process_running(step, process):
                out = self._steps.process_output(step, process)
                raise self._steps.error(step, f"pid {process.pid} exited:\n{log_tail(out)}")
            if self._steps.run(step, argv, check=False, timeout_s=5.0).exit_code == 0:
                return
            if self._clock() >= deadline:
                raise self._steps.error(
                    step, f"{self.plan.sockets[0]} not there within "
                    f"{START_TIMEOUT_S:g} s",
                )  # fmt: skip
            self._sleep(POLL_S)

    @property
    def log(self) -> str:
        """Everything the guest printed, once it has ended ("" before)."""
        return self._log

    def telemetry(self) -> dict[str, str]:
        """The guest's plan and the tail of its output."""
        out = {"guest": self.plan.text}
        process = self._process
        text = self._log if process is None else self._steps.process_output("guest", process)
        out["guest_output"] = log_tail(text)
        return out

    def stop(self) -> None:
        """End the guest by PID; remove its run directory and a VPP stand-in's segments."""
        errors: list[str] = []
        process, self._process = self._process, None
        if process is not None:
            try:
                process.stop(10.0)
                self._log = process.output()
            except Exception as exc:
                errors.append(f"could not end pid {process.pid}: {exc}")
        if self._made:
            run = self.plan.run_dir
            self._steps.undo(errors, "guest: remove the run directory", ["rm", "-rf", "--", run])
            if self.plan.qemu is None:  # a stand-in's API segment, DPDK's runtime directory
                self._steps.undo(
                    errors, "guest: remove its API segment and DPDK directory",
                    ["sh", "-c", 'rm -rf -- /dev/shm/"$1"-* /var/run/dpdk/"$1"', "sh",
                     self.plan.prefix],
                )  # fmt: skip
        self._made = False
        if errors:
            raise self._steps.error("guest: stop", "\n".join(errors))


def vhost_up(show_hardware: str, names: Sequence[str]) -> list[str]:
    """Which of ``names`` ``show hardware-interfaces`` does not list as up."""
    up = set()
    for line in show_hardware.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] in names and words[2] == "up":
            up.add(words[0])
    return [name for name in names if name not in up]


def wait_vhost_up(
    cli: Callable[[str], str],
    names: Sequence[str],
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> list[str]:
    """Ask the DUT's VPP (``cli``) until ``names`` are up; those still down at the timeout."""
    deadline = clock() + CONNECT_TIMEOUT_S
    while True:
        down = vhost_up(cli("show hardware-interfaces"), names)
        if not down or clock() >= deadline:
            return down
        sleep(POLL_S * 5)
