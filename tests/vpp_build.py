"""Whether the shared VPP build runs on this machine: installed, and its code runs on this CPU.

``../shared/vpp`` is built with ``-march=native`` on a CPU with AVX-512
(its README): on a CPU without it (an AMD EPYC before Zen 4) ``vpp`` dies
with SIGILL before it does anything, even for ``--version``. A test that
needs the real VPP asks ``vpp_problem()`` and skips with its text (or
fails, under NDRPDR_REQUIRE_VPP=1). ``.ci/run`` sets NDRPDR_REQUIRE_VPP=1
only where ``vpp --version`` runs, and says so where it does not, so a CI
on such a CPU runs every other test and names the reason for the skips
instead of failing on a build that cannot run here.
"""

from __future__ import annotations

import functools
import signal
import subprocess
from pathlib import Path

VPP_DIR = Path("/opt/vpp/v26.06")
VPP_BIN = VPP_DIR / "bin" / "vpp"


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
    return None
