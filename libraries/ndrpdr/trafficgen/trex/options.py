"""The trex TG driver's settings: the TG node's ``options``, read and checked (no I/O).

``parse_options`` rejects unknown keys and wrong types; every error names
``nodes.<key>.options.<field>`` and what is wrong with it. The keys, their
types and defaults are the fields of ``TrexOptions`` (see its docstring).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from typing import Any

from ndrpdr.testbed.model import Node, SshAccess, Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError

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

_PATH = re.compile(r"^/[^\0\n]*$")
_HOST = re.compile(r"^[A-Za-z0-9_.:%\[\]-]+$")


@dataclasses.dataclass(frozen=True)
class TrexOptions:
    """The trex driver's options, checked.

    Server (on the TG node, reached through its node access):

    - ``install_dir`` (str, ``/opt/trex-core/scripts``): the directory of
      ``t-rex-64`` on the TG.
    - ``config_path`` (str, ``/etc/trex_cfg.yaml``): where trex_cfg.yaml is
      written (``--cfg``).
    - ``start_server`` (bool, true): start ``t-rex-64 -i`` and stop it on
      close; false connects to a server that is already running (its
      config is then not written).
    - ``extra_args`` (list of str, []): more t-rex-64 arguments (CSIT adds
      ``--prefix <host> --hdrh --no-scapy-server --mbuf-factor 32``).
    - ``software_mode`` (bool, false): the server runs in software mode on
      Linux interfaces (veth, tap; the interfaces' ``name``), ``low_end``
      in the config and ``--software`` on the command line; else DPDK
      ports by ``pci_address``.
    - ``cores`` (int >= 1, 1): ``c``, data-plane threads per port pair.
    - ``master_thread_id``, ``latency_thread_id`` (int >= 0 or null) and
      ``threads`` (list of int or null): the ``platform`` section; give
      ``master_thread_id`` and ``threads`` (at least ``cores`` of them)
      together, or neither. ``socket`` (int, 0): their NUMA node.
    - ``limit_memory`` (int MB or null): ``limit_memory``.
    - ``low_end_core`` (int or null): the core of a software-mode server.
    - ``api_retries`` (int >= 1, 20) and ``api_retry_interval_s`` (number,
      1.0): how long to wait for a starting server's API.

    Client (on this machine):

    - ``client_path`` (str or null): the directory that holds TRex's own
      client package ``trex`` (``<TRex>/automation/trex_control_plane/
      interactive``), copied to this machine; null uses PyPI
      ``trex_stl_lib``, which only TRex v2.28..v2.8x servers accept.
    - ``server`` (str or null): the host the client connects to (default:
      the TG's SSH host, else ``localhost``); ``sync_port`` (4501) and
      ``async_port`` (4500): TRex's RPC and publisher ports (written to the
      config when not the defaults).

    Trials:

    - ``max_rate_pps`` (number > 0 or null): cap on the aggregate load
      (below the line rate of the ports, e.g. for a software-mode server).
    - ``latency_pps`` (number >= 0, 0): a latency stream per direction at
      this rate (part of the direction's rate); 0 sends none.
    - ``settle_s`` (number >= 0, 0.05): wait after the traffic ends before
      the counters are read [s].
    """

    install_dir: str = DEFAULT_INSTALL_DIR
    config_path: str = DEFAULT_CONFIG_PATH
    start_server: bool = True
    extra_args: tuple[str, ...] = ()
    software_mode: bool = False
    cores: int = 1
    master_thread_id: int | None = None
    latency_thread_id: int | None = None
    threads: tuple[int, ...] | None = None
    socket: int = 0
    limit_memory: int | None = None
    low_end_core: int | None = None
    api_retries: int = DEFAULT_API_RETRIES
    api_retry_interval_s: float = DEFAULT_API_RETRY_INTERVAL_S
    client_path: str | None = None
    server: str | None = None
    sync_port: int = DEFAULT_SYNC_PORT
    async_port: int = DEFAULT_ASYNC_PORT
    max_rate_pps: float | None = None
    latency_pps: float = 0.0
    settle_s: float = DEFAULT_SETTLE_S


#: Option keys of the trex driver, in documentation order.
OPTION_KEYS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(TrexOptions))


def where(topology: Topology, node: Node, field: str) -> str:
    """``<file>: nodes.<key>.<field>`` (the file only when the topology has one)."""
    prefix = f"{topology.source}: " if topology.source is not None else ""
    return f"{prefix}nodes.{node.key}.{field}"


class _Reader:
    """Typed reads of one node's options; errors name ``nodes.<key>.options.<field>``."""

    def __init__(self, topology: Topology, node: Node) -> None:
        self._topology = topology
        self._node = node
        self._values: Mapping[str, Any] = node.options
        for key in sorted(self._values, key=str):
            if key not in OPTION_KEYS:
                raise self.error(str(key), f"unknown option; trex takes {', '.join(OPTION_KEYS)}")

    def error(self, key: str, detail: str) -> TrafficGeneratorError:
        return TrafficGeneratorError(
            f"{where(self._topology, self._node, f'options.{key}')}: {detail}"
        )

    def boolean(self, key: str, default: bool) -> bool:
        value = self._values.get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, f"{value!r} is not true or false")
        return value

    def integer(self, key: str, default: int, minimum: int, maximum: int | None = None) -> int:
        value = self._optional_integer(key, minimum, maximum)
        return default if value is None else value

    def _optional_integer(self, key: str, minimum: int, maximum: int | None = None) -> int | None:
        value = self._values.get(key)
        if value is None:
            return None
        top = math.inf if maximum is None else maximum
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= top:
            span = f"{minimum}..{maximum}" if maximum is not None else f">= {minimum}"
            raise self.error(key, f"{value!r} is not an integer {span}")
        return value

    def optional_integer(self, key: str, minimum: int) -> int | None:
        return self._optional_integer(key, minimum)

    def number(self, key: str, default: float, *, allow_zero: bool) -> float:
        value = self.optional_number(key, allow_zero=allow_zero)
        return default if value is None else value

    def optional_number(self, key: str, *, allow_zero: bool) -> float | None:
        value = self._values.get(key)
        if value is None:
            return None
        bad = isinstance(value, bool) or not isinstance(value, (int, float))
        if bad or not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
            relation = ">= 0" if allow_zero else "> 0"
            raise self.error(key, f"{value!r} is not a finite number {relation}")
        return float(value)

    def path(self, key: str, default: str | None) -> str | None:
        value = self._values.get(key, default)
        if value is None:
            return None
        if not isinstance(value, str) or not _PATH.match(value):
            raise self.error(key, f"{value!r} is not an absolute path")
        return value

    def host(self, key: str) -> str | None:
        value = self._values.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not _HOST.match(value):
            raise self.error(key, f"{value!r} is not a host name or address")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        value = self._values.get(key, ())
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) and v for v in value):
            return tuple(value)
        raise self.error(key, f"{value!r} is not a list of non-empty strings")

    def integers(self, key: str) -> tuple[int, ...] | None:
        value = self._values.get(key)
        if value is None:
            return None
        if (
            isinstance(value, (list, tuple))
            and value
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
        ):
            return tuple(value)
        raise self.error(key, f"{value!r} is not a non-empty list of integers >= 0")


def parse_options(topology: Topology) -> TrexOptions:
    """The TG node's options as TrexOptions (TrafficGeneratorError names a bad field)."""
    node = topology.tg
    read = _Reader(topology, node)
    software = read.boolean("software_mode", False)
    cores = read.integer("cores", 1, 1)
    master = read.optional_integer("master_thread_id", 0)
    latency = read.optional_integer("latency_thread_id", 0)
    threads = read.integers("threads")
    if (master is None) != (threads is None):
        missing = "threads" if threads is None else "master_thread_id"
        raise read.error(missing, "missing: give master_thread_id and threads together")
    if latency is not None and master is None:
        raise read.error("latency_thread_id", "needs master_thread_id and threads")
    if threads is not None:
        if len(threads) < cores:
            raise read.error("threads", f"{list(threads)} has fewer than cores={cores} threads")
        if len(set(threads)) != len(threads):
            raise read.error("threads", f"{list(threads)} lists a thread twice")
        for key, value in (("master_thread_id", master), ("latency_thread_id", latency)):
            if value is not None and value in threads:
                raise read.error(key, f"{value} is also in threads {list(threads)}")
    low_end_core = read.optional_integer("low_end_core", 0)
    if low_end_core is not None and not software:
        raise read.error("low_end_core", "only a software_mode server takes it")
    sync_port = read.integer("sync_port", DEFAULT_SYNC_PORT, 1, 65535)
    async_port = read.integer("async_port", DEFAULT_ASYNC_PORT, 1, 65535)
    if sync_port == async_port:
        raise read.error("async_port", f"{async_port} is also the sync_port")
    server = read.host("server")
    if server is None:
        server = node.access.host if isinstance(node.access, SshAccess) else "localhost"
    return TrexOptions(
        install_dir=read.path("install_dir", DEFAULT_INSTALL_DIR) or DEFAULT_INSTALL_DIR,
        config_path=read.path("config_path", DEFAULT_CONFIG_PATH) or DEFAULT_CONFIG_PATH,
        start_server=read.boolean("start_server", True),
        extra_args=read.strings("extra_args"),
        software_mode=software,
        cores=cores,
        master_thread_id=master,
        latency_thread_id=latency,
        threads=threads,
        socket=read.integer("socket", 0, 0),
        limit_memory=read.optional_integer("limit_memory", 1),
        low_end_core=low_end_core,
        api_retries=read.integer("api_retries", DEFAULT_API_RETRIES, 1),
        api_retry_interval_s=read.number(
            "api_retry_interval_s", DEFAULT_API_RETRY_INTERVAL_S, allow_zero=False
        ),
        client_path=read.path("client_path", None),
        server=server,
        sync_port=sync_port,
        async_port=async_port,
        max_rate_pps=read.optional_number("max_rate_pps", allow_zero=False),
        latency_pps=read.number("latency_pps", 0.0, allow_zero=True),
        settle_s=read.number("settle_s", DEFAULT_SETTLE_S, allow_zero=True),
    )
