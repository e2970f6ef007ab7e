"""A software-mode TRex v3.08 on veths of a namespace of its own, and a client that captures.

``CaptureBed`` makes namespace ``csiteq<pid>`` with two veth pairs: TRex's
ports ``tg0``/``tg1`` and their peers ``cp0``/``cp1``, where what a port
sends is captured (IPv6 is off in the namespace, so the kernel sends
nothing of its own there). TRex runs with a unique ``--prefix``; its
client is ``trexcapture_child.py`` in a child process inside the
namespace. ``close`` stops TRex (SIGINT to ``_t-rex-64``, by PID),
removes its DPDK runtime directory (``/var/run/dpdk/<prefix>``) and
deletes the namespace, which deletes the veths.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ndrpdr.trafficgen.trex.childclient import ChildClient
from ndrpdr.trafficgen.trex.client import ClientSettings

TREX_DIR = Path("/opt/trex/v3.08")
CLIENT_PATH = TREX_DIR / "automation" / "trex_control_plane" / "interactive"
DPDK_RUN_DIR = Path("/var/run/dpdk")
CHILD = str(Path(__file__).resolve().parent / "trexcapture_child.py")
#: The MACs TRex's ports send from / to (its config's port_info).
PORT_MACS = (("02:00:00:00:01:01", "02:00:00:00:01:02"), ("02:00:00:00:02:01", "02:00:00:00:02:02"))

_CONFIG = """- version: 2
  port_limit: 2
  interfaces: ["tg0", "tg1"]
  low_end: true
  port_info:
    - {{src_mac: "{0[0][0]}", dest_mac: "{0[0][1]}"}}
    - {{src_mac: "{0[1][0]}", dest_mac: "{0[1][1]}"}}
"""


def _run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True, timeout=60)


class CaptureClient(ChildClient):
    """A ChildClient whose child also sends single bursts and captures them."""

    def __init__(self, settings: ClientSettings) -> None:
        super().__init__(settings, program=CHILD)

    def csit_burst(self, **args: Any) -> list[bytes]:
        return list(self._request("csit_burst", args, timeout_s=120))

    def ours_burst(self, spec: Mapping[str, Any], **args: Any) -> list[bytes]:
        return list(self._request("ours_burst", {"spec": dict(spec), **args}, timeout_s=120))


class CaptureBed:
    """The namespace, TRex and the capturing client (see the module docstring)."""

    def __init__(self, scratch: Path) -> None:
        self.namespace = f"csiteq{os.getpid()}"
        self.prefix = f"ndrpdr-csiteq-{os.getpid()}"
        self.trex: subprocess.Popen[bytes] | None = None
        self.client: CaptureClient | None = None
        self.log = scratch / "trex.log"
        _run("ip", "netns", "add", self.namespace)
        try:
            self._links()
            config = scratch / "trex_cfg.yaml"
            config.write_text(_CONFIG.format(PORT_MACS))
            with self.log.open("wb") as log:
                self.trex = subprocess.Popen(
                    ["ip", "netns", "exec", self.namespace, "./t-rex-64", "-i", "--software",
                     "--cfg", str(config), "--prefix", self.prefix, "--no-scapy-server"],
                    cwd=TREX_DIR, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )  # fmt: skip
            self.client = self._connect()
        except BaseException:
            self.close()
            raise

    def _links(self) -> None:
        ns = ("ip", "netns", "exec", self.namespace)
        _run(*ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        _run(*ns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        for n in (0, 1):
            _run(*ns, "ip", "link", "add", f"tg{n}", "type", "veth", "peer", "name", f"cp{n}")
            for name in (f"tg{n}", f"cp{n}"):
                _run(*ns, "ip", "link", "set", name, "up")
        _run(*ns, "ip", "link", "set", "lo", "up")

    def _connect(self) -> CaptureClient:
        settings = ClientSettings(
            node="tg", server="127.0.0.1", client_path=str(CLIENT_PATH), namespace=self.namespace
        )
        client = CaptureClient(settings)
        deadline = time.monotonic() + 90
        while True:
            try:
                client.connect()
                client.acquire([0, 1], force=True)
                return client
            except Exception:
                if time.monotonic() > deadline or (self.trex and self.trex.poll() is not None):
                    client.close()
                    raise
                time.sleep(0.5)

    def _trex_core(self) -> int | None:
        """The PID of ``_t-rex-64`` below our ``t-rex-64`` (from /proc)."""
        if self.trex is None:
            return None
        todo = [self.trex.pid]
        while todo:
            pid = todo.pop()
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/comm").read_text().strip().startswith("_t-rex-64"):
                    return pid
                todo += [
                    int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                ]
        return None

    def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.disconnect()
            self.client.close()
            self.client = None
        if self.trex is not None:
            core = self._trex_core()
            if core is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(core, signal.SIGINT)
            try:
                self.trex.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.trex.pid, signal.SIGKILL)  # our own session, by its id
                self.trex.wait(timeout=10)
            self.trex = None
        shutil.rmtree(DPDK_RUN_DIR / self.prefix, ignore_errors=True)  # TRex leaves it behind
        subprocess.run(["ip", "netns", "del", self.namespace], capture_output=True, check=False)
