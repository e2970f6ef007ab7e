"""Whether the shared VPP build runs on this machine: installed, and its code runs on this CPU.

``../shared/vpp`` is built with ``-march=native`` (its README): on a CPU
that lacks one of the build machine's instructions VPP dies with SIGILL.
Where it dies depends on the CPU. Without AVX-512 (an AMD EPYC before Zen
4) it dies before it does anything, even for ``--version``. On a Zen 4,
which has AVX-512 but not AVX512-FP16, ``--version`` and start-up pass and
it dies at the first IPv4 address it is given (``fib_prefix_normalize``,
a VMOVW): every test that configures an interface fails, none skips. So
the probe runs that: a VPP of its own (no plugins, 4 KiB pages, its files
in a temporary directory) adds an address to a loopback interface, and the
probe waits until VPP shows it or dies.

A test that needs the real VPP asks ``vpp_problem()`` and skips with its
text (or fails, under NDRPDR_REQUIRE_VPP=1). ``.ci/run`` runs this file
(``python3 tests/vpp_build.py``: the problem on stderr, exit status
``CANNOT_RUN``) and sets NDRPDR_REQUIRE_VPP=1 only where it passes, and says
so where it names a problem, so a CI on such a CPU runs every other test and
names the reason for the skips instead of failing on a build that cannot run
here. Any other exit status (the probe itself broke: a traceback exits 1)
fails ``.ci/run``: a broken probe must not turn every VPP test into a skip.
"""

from __future__ import annotations

import functools
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VPP_DIR = Path("/opt/vpp/v26.06")
VPP_BIN = VPP_DIR / "bin" / "vpp"
VPPCTL = VPP_DIR / "bin" / "vppctl"
#: The address the probe's VPP is given: a FIB entry, the code the FP16 build dies in.
PROBE_ADDRESS = "10.255.255.1/24"
#: How long the probe's VPP has to show the address [s] (it takes well under one).
PROBE_TIMEOUT_S = 30.0
_FRAME = re.compile(r"#0\s+0x[0-9a-f]+\s+(\S+)")
#: The exit status of ``python3 tests/vpp_build.py`` when the VPP cannot run here.
CANNOT_RUN = 3


@functools.cache
def vpp_problem() -> str | None:
    """Why the real VPP cannot run here (not installed, or this CPU lacks its instructions)."""
    if not VPP_BIN.is_file():
        return f"VPP is not installed at {VPP_DIR} (run ../shared/vpp/install)"
    try:
        done = subprocess.run(
            [str(VPP_BIN), "--version"], capture_output=True, timeout=30, check=False
        )
    except subprocess.TimeoutExpired:
        return None  # it ran: whatever kept it, it is not the CPU
    if done.returncode == -signal.SIGILL:
        return (
            f"{VPP_BIN} dies with SIGILL on this CPU ('vpp --version'): ../shared/vpp was "
            "built with -march=native for a CPU with AVX-512, which this one lacks"
        )
    return _address_problem()


def _startup_conf(run: Path) -> str:
    return f"""unix {{
  nodaemon
  runtime-dir {run}
  cli-listen {run}/cli.sock
  pidfile {run}/vpp.pid
  startup-config {run}/probe.cli
}}
api-segment {{ prefix {run.name} }}
socksvr {{ socket-name {run}/api.sock }}
statseg {{ socket-name {run}/stats.sock page-size 4k }}
memory {{ main-heap-size 64M main-heap-page-size 4k }}
buffers {{ buffers-per-numa 4096 page-size 4k }}
plugins {{ plugin default {{ disable }} }}
"""


def _address_problem() -> str | None:
    """Why a VPP given an IPv4 address dies on this CPU (SIGILL), or None when it shows it.

    Anything else (it could not start, it did not answer in time) is no
    CPU's fault: None, and the tests name what went wrong.
    """
    with tempfile.TemporaryDirectory(prefix="ndrpdr-vpp-probe-") as tmp:
        run = Path(tmp)
        (run / "probe.cli").write_text(
            f"create loopback interface\nset interface ip address loop0 {PROBE_ADDRESS}\n"
        )
        (run / "startup.conf").write_text(_startup_conf(run))
        output = run / "vpp.out"
        with output.open("wb") as sink:
            vpp = subprocess.Popen(
                [str(VPP_BIN), "-c", str(run / "startup.conf")],
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        try:
            deadline = time.monotonic() + PROBE_TIMEOUT_S
            while vpp.poll() is None and time.monotonic() < deadline:
                if _shows_address(run):
                    return None
                time.sleep(0.1)
        finally:
            if vpp.poll() is None:
                vpp.terminate()
                try:
                    vpp.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    vpp.kill()
                    vpp.wait()
        said = output.read_text(errors="replace")
        for segment in Path("/dev/shm").glob(f"{run.name}-*"):  # a VPP that died left them
            segment.unlink(missing_ok=True)
    if "SIGILL" not in said:
        return None
    frame = _FRAME.search(said)
    where = f" in {frame.group(1)}" if frame else ""
    return (
        f"{VPP_BIN} dies with SIGILL{where} on this CPU once given an IPv4 address: "
        "../shared/vpp was built with -march=native for a CPU with instructions this one "
        "lacks (its --version runs)"
    )


def _shows_address(run: Path) -> bool:
    """The probe's VPP answers its CLI and shows the address on loop0."""
    try:
        done = subprocess.run(
            [str(VPPCTL), "-s", str(run / "cli.sock"), "show", "interface", "address"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False
    return PROBE_ADDRESS in done.stdout


if __name__ == "__main__":
    PROBLEM = vpp_problem()
    if PROBLEM is not None:
        print(PROBLEM, file=sys.stderr)
    sys.exit(0 if PROBLEM is None else CANNOT_RUN)
