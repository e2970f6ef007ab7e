"""The trex TG driver's settings: the TG node's ``options``, read and checked (no I/O).

``TrexOptions`` declares every option once (type, default, limits, doc);
``parse_options`` reads a topology's TG options into it, and every error
names ``nodes.<key>.options.<field>`` and what is wrong with it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ndrpdr.drivers import option, option_names
from ndrpdr.topology.model import SshAccess, Topology
from ndrpdr.trafficgen.base import node_options, where

#: Where CSIT installs TRex on its TGs (t-rex-64 and trex-cfg live there).
DEFAULT_INSTALL_DIR = "/opt/trex-core/scripts"
#: The config file t-rex-64 reads by default.
DEFAULT_CONFIG_PATH = "/etc/trex_cfg.yaml"
#: TRex's JSON-RPC (ZeroMQ REQ) port and its async publisher port.
DEFAULT_SYNC_PORT = 4501
DEFAULT_ASYNC_PORT = 4500
#: API readiness: CSIT polls 20 times before it gives up on a starting server.
DEFAULT_API_RETRIES = 20
DEFAULT_API_RETRY_INTERVAL_S = 1.0
#: Wait after the traffic ends before reading counters (frames still in the DUT) [s].
DEFAULT_SETTLE_S = 0.05

_PATH = r"/[^\0\n]*"
_HOST = r"[A-Za-z0-9_.:%\[\]-]+"


@dataclasses.dataclass(frozen=True)
class TrexOptions:
    """The trex driver's options.

    The server runs on the TG node, reached through its node access; the
    client runs where ndrpdr runs (``client_path``: TRex's own client, which
    must match the server). ``software_mode`` runs TRex on Linux interfaces
    (their ``name``) instead of DPDK ports (``pci_address``).
    """

    install_dir: str = option(
        DEFAULT_INSTALL_DIR, "the directory of t-rex-64 on the TG", pattern=_PATH,
        what="an absolute path",
    )  # fmt: skip
    config_path: str = option(
        DEFAULT_CONFIG_PATH, "where trex_cfg.yaml is written (--cfg)", pattern=_PATH,
        what="an absolute path",
    )  # fmt: skip
    start_server: bool = option(
        True, "start t-rex-64 -i and stop it at teardown; false uses a running server"
    )
    extra_args: tuple[str, ...] = option(
        (), "more t-rex-64 arguments (CSIT: --hdrh --no-scapy-server --mbuf-factor 32)"
    )
    software_mode: bool = option(
        False, "TRex on Linux interfaces (veth, tap) by name: low_end and --software"
    )
    low_end: bool = option(
        False, "low_end without software_mode: TRex's DPDK path with every thread on one core "
        "(memif ports on a small machine)",
    )  # fmt: skip
    cores: int = option(1, "data-plane threads per port pair (c)", minimum=1)
    master_thread_id: int | None = option(
        None, "platform.master_thread_id (give it with threads)", minimum=0
    )
    latency_thread_id: int | None = option(
        None, "platform.latency_thread_id (needs master_thread_id)", minimum=0
    )
    threads: tuple[int, ...] | None = option(
        None, "platform.dual_if threads (at least cores of them)", minimum=0, min_items=1,
        unique=True,
    )  # fmt: skip
    socket: int = option(0, "NUMA node of the ports and threads", minimum=0)
    limit_memory: int | None = option(None, "limit_memory [MB]", minimum=1)
    low_end_core: int | None = option(None, "the core of a software-mode server", minimum=0)
    api_retries: int = option(
        DEFAULT_API_RETRIES, "tries of the API while the server starts", minimum=1
    )
    api_retry_interval_s: float = option(
        DEFAULT_API_RETRY_INTERVAL_S, "time between those tries [s]", minimum=0,
        exclusive_minimum=True,
    )  # fmt: skip
    client_path: str | None = option(
        None,
        "the directory holding TRex's own client package trex (<TRex>/automation/"
        "trex_control_plane/interactive) where ndrpdr runs; not set: PyPI's trex_stl_lib "
        "(not installed with ndrpdr: pip install trex-stl-lib), which only TRex v2.28..v2.8x "
        "servers accept",
        pattern=_PATH,
        what="an absolute path",
    )
    server: str | None = option(
        None, "the host the client connects to (default: the TG's SSH host, else localhost)",
        pattern=_HOST, what="a host name or address",
    )  # fmt: skip
    sync_port: int = option(DEFAULT_SYNC_PORT, "TRex's RPC port", minimum=1, maximum=65535)
    async_port: int = option(DEFAULT_ASYNC_PORT, "TRex's publisher port", minimum=1, maximum=65535)
    max_rate_pps: float | None = option(
        None, "cap on the aggregate load [packets/s] (below the ports' line rate)", minimum=0,
        exclusive_minimum=True,
    )  # fmt: skip
    latency_pps: float = option(
        0.0, "a latency stream per direction at this rate (0: none)", minimum=0
    )
    settle_s: float = option(
        DEFAULT_SETTLE_S, "wait after the traffic ends before the counters are read [s]",
        minimum=0,
    )  # fmt: skip

    @property
    def one_core(self) -> bool:
        """True when TRex runs every thread on one core (``low_end``: software_mode or low_end)."""
        return self.software_mode or self.low_end

    def problems(self) -> Iterator[tuple[str, str]]:
        """Combinations of the platform, port and software-mode options that do not hold."""
        master, threads = self.master_thread_id, self.threads
        if (master is None) != (threads is None):
            missing = "threads" if threads is None else "master_thread_id"
            yield missing, "missing: give master_thread_id and threads together"
        if self.latency_thread_id is not None and master is None:
            yield "latency_thread_id", "needs master_thread_id and threads"
        if threads is not None:
            if len(threads) < self.cores:
                yield "threads", f"{list(threads)} has fewer than cores={self.cores} threads"
            for key, value in (
                ("master_thread_id", master),
                ("latency_thread_id", self.latency_thread_id),
            ):
                if value is not None and value in threads:
                    yield key, f"{value} is also in threads {list(threads)}"
        if self.low_end_core is not None and not self.one_core:
            yield "low_end_core", "only a software_mode or low_end server takes it"
        if self.sync_port == self.async_port:
            yield "async_port", f"{self.async_port} is also the sync_port"


#: Option keys of the trex driver, in documentation order.
OPTION_KEYS: tuple[str, ...] = option_names(TrexOptions)

__all__ = ["OPTION_KEYS", "TrexOptions", "parse_options", "where"]


def parse_options(topology: Topology) -> TrexOptions:
    """The TG node's options as TrexOptions (TrafficGeneratorError names a bad field).

    ``server`` defaults to the TG's SSH host, else localhost.
    """
    node = topology.tg
    options = node_options(topology, node, TrexOptions)
    if options.server is None:
        host = node.access.host if isinstance(node.access, SshAccess) else "localhost"
        options = dataclasses.replace(options, server=host)
    return options
