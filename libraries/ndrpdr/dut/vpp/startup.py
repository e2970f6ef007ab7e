"""VPP's startup.conf sections as FD.io CSIT writes them, and the lab's whole startup.conf.

Pure functions, no I/O. CSIT's base startup configuration (``Create base
startup configuration of VPP on all DUTs``, ``Add worker threads to all
DUTs`` and the ``dpdk`` pre-initialisation in its ``interfaces.robot``)
has these sections; the sizes come from ``ndrpdr.dut.vpp.memory``
(CSIT's, scaled where the node cannot hold them):

- ``unix``: ``log``, ``cli-listen``, ``cli-no-pager``, ``full-coredump``
  (the lab; a VPP of the run on Linux interfaces keeps its files in its
  run directory and dumps no 3 GiB core) and our ``nodaemon``;
- ``api-segment { prefix <node> }`` and ``socksvr { socket-name }`` (the
  binary API socket beside the CLI socket: CSIT's ``/run/vpp/api.sock``);
- ``memory``: ``main-heap-size``, ``main-heap-page-size``,
  ``default-hugepage-size`` (hugepages only);
- ``statseg``: ``size``, ``page-size``, ``per-node-counters on``;
- ``ip6 { hash-buckets heap-size }`` (CSIT sets no ``ip4`` heap);
- ``cpu`` (``ndrpdr.dut.vpp.config``: main core, workers), ``buffers {
  buffers-per-numa }`` (``page-size 4k`` without hugepages), ``dpdk``
  (``ndrpdr.dut.vpp.dpdk``; the lab's NICs add CSIT's ``log-level
  debug``), ``plugins``.

A family's large tables (``families.build.large_tables_startup``: a
``memory { main-heap-size }`` and ``statseg { size }`` that would follow
and, VPP taking the last value, replace the sizes above) become sizes the
base sections take when larger than CSIT's, and the least scaling leaves
(``family_needs``); its ``heap_size_mult`` (CSIT's, e.g. 2 for NAT44 with
4M sessions) multiplies CSIT's 3 GiB main heap.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Sequence

from ndrpdr.dut import cores
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.vpp.config import (
    BUFFER_DATA_SIZE_B,
    STANDARD_MAX_FRAME_B,
    VppOptions,
    check_ports,
    family_plugins,
    interface_name,
    main_core,
    plugin_files,
    rx_queues,
    uio_driver,
    worker_cores,
)
from ndrpdr.dut.vpp.dpdk import dpdk_section
from ndrpdr.dut.vpp.memifports import BUFFERS_PER_NUMA
from ndrpdr.dut.vpp.memory import (
    MIN_BUFFERS,
    NodeMemory,
    StartupSizing,
    page_text,
    size_startup,
    size_text,
)
from ndrpdr.topology.model import Node

#: CSIT's DPDK log level on a lab's NICs.
DPDK_LOG_LEVEL = "debug"

_FAMILY_HEAP = re.compile(r"^memory \{ main-heap-size (\d+)M \}$")
_FAMILY_STATSEG = re.compile(r"^statseg \{ size (\d+)M \}$")


@dataclasses.dataclass(frozen=True)
class FamilyNeeds:
    """A family's startup text split: its heap and statistics segment sizes [MiB] (None:
    not set) and the rest of its sections, appended as they are."""

    heap_mb: int | None = None
    statseg_mb: int | None = None
    rest: str = ""


def family_needs(text: str) -> FamilyNeeds:
    """``text`` (a family's startup sections) with its one-line heap and statseg sizes taken out."""
    heap = statseg = None
    rest: list[str] = []
    for line in text.splitlines():
        if (found := _FAMILY_HEAP.match(line.strip())) is not None:
            heap = int(found.group(1))
        elif (found := _FAMILY_STATSEG.match(line.strip())) is not None:
            statseg = int(found.group(1))
        else:
            rest.append(line)
    return FamilyNeeds(heap, statseg, "".join(f"{line}\n" for line in rest))


def sizing_for(
    options: VppOptions,
    memory: NodeMemory | None,
    smt: bool | None,
    needs: FamilyNeeds = FamilyNeeds(),
    heap_size_mult: int = 1,
) -> StartupSizing:
    """The memory settings for the node's options, its memory and SMT, and the family
    (its tables' sizes, CSIT's ``heap_size_mult``)."""
    return size_startup(
        memory,
        lab_nics=options.port_kind == "dpdk",
        smt=smt,
        memory_mb=options.memory_mb,
        main_heap_mb=options.main_heap_mb,
        buffers_per_numa=options.buffers_per_numa,
        family_heap_mb=needs.heap_mb,
        family_statseg_mb=needs.statseg_mb,
        min_buffers=BUFFERS_PER_NUMA if options.port_kind == "memif" else MIN_BUFFERS,
        heap_size_mult=heap_size_mult,
    )


def smt_used(config: DutTestConfig, node_smt: bool | None) -> bool | None:
    """CSIT's ``smt_used`` for the buffer count: the test lets cores give all their threads
    (``config.smt``) and the node has SMT: its CPU layout (``config.cpus``) when known,
    else ``node_smt`` (``/sys/devices/system/cpu/smt/active``; None: unknown)."""
    if not config.smt:
        return False
    if config.cpus is not None:
        return config.cpus.layout.smt
    return node_smt


def api_sections(prefix: str, api_socket: str) -> list[str]:
    """``api-segment`` (shared-memory names) and ``socksvr`` (the binary API socket)."""
    return [f"api-segment {{ prefix {prefix} }}", f"socksvr {{ socket-name {api_socket} }}"]


def memory_sections(
    sizing: StartupSizing, stats_socket: str | None = None, *, ip6: bool = True
) -> list[str]:
    """``memory``, ``statseg`` and (``ip6``) ``ip6`` with ``sizing``'s values."""
    page = page_text(sizing.page_kb)
    lines = [
        "memory {",
        f"  main-heap-size {size_text(sizing.main_heap_mb)}",
        f"  main-heap-page-size {page}",
    ]
    if sizing.hugepages:
        lines.append(f"  default-hugepage-size {page}")
    lines += ["}", "statseg {"]
    if stats_socket is not None:
        lines.append(f"  socket-name {stats_socket}")
    lines += [
        f"  size {size_text(sizing.statseg_mb)}",
        f"  page-size {page}",
        "  per-node-counters on",
        "}",
    ]
    if ip6:
        lines += [
            "ip6 {",
            f"  hash-buckets {sizing.ip6_hash_buckets}",
            f"  heap-size {size_text(sizing.ip6_heap_mb)}",
            "}",
        ]
    return lines


def buffers_section(sizing: StartupSizing) -> list[str]:
    """``buffers``: CSIT's count (or the scaled one); ``page-size 4k`` without hugepages."""
    lines = ["buffers {", f"  buffers-per-numa {sizing.buffers}"]
    if not sizing.hugepages:
        lines.append(f"  page-size {page_text(sizing.page_kb)}")
    return [*lines, "}"]


def scaled_comment(sizing: StartupSizing) -> list[str]:
    """Comment lines naming each value scaled from CSIT's (none when unscaled)."""
    if not sizing.scaled:
        return ["# FD.io CSIT's sections and sizes, unscaled."]
    return [
        "# FD.io CSIT's sections; values that differ from CSIT's, and why:",
        *(f"#   {line}" for line in sizing.scaled),
    ]


def multi_seg_off(node: Node, config: DutTestConfig, options: VppOptions) -> bool:
    """Whether startup.conf says ``no-multi-seg`` (DutError if set but frames do not fit)."""
    if options.no_multi_seg is None:
        return config.max_frame_size_b <= STANDARD_MAX_FRAME_B
    if options.no_multi_seg and config.max_frame_size_b > BUFFER_DATA_SIZE_B:
        raise DutError(
            f"{node.key} (vpp): nodes.{node.key}.options.no_multi_seg: true, but the test's "
            f"frames reach {config.max_frame_size_b} B and one VPP buffer holds "
            f"{BUFFER_DATA_SIZE_B} B: remove the option (VPP then uses multi-segment buffers "
            "for jumbo frames)"
        )
    return options.no_multi_seg


def dpdk_lines(
    node: Node,
    config: DutTestConfig,
    options: VppOptions,
    queues: int,
    *,
    nics: list[tuple[str, str]] | None = None,
    vdevs: list[str] | None = None,
    uio_driver: str | None = None,
    file_prefix: str | None = None,
    more: Sequence[str] = (),
) -> list[str]:
    """The ``dpdk`` section for ``config`` with ``queues`` RX queues per port
    (``ndrpdr.dut.vpp.dpdk.dpdk_section``: the options' descriptors, ``no-multi-seg``; NICs: CSIT's
    ``log-level``; ``more``: the family's devices' lines)."""
    return dpdk_section(
        queues,
        rx_descriptors=options.rx_descriptors,
        tx_descriptors=options.tx_descriptors,
        no_multi_seg=multi_seg_off(node, config, options),
        uio_driver=uio_driver,
        nics=nics or (),
        vdevs=vdevs or (),
        file_prefix=file_prefix,
        log_level=DPDK_LOG_LEVEL if nics else None,
        more=more,
    )


def startup_conf(
    node: Node,
    config: DutTestConfig,
    options: VppOptions,
    sizing: StartupSizing | None = None,
    dpdk_more: Sequence[str] = (),
) -> str:
    """The text of a lab VPP's startup.conf for ``config`` on ``node`` (NICs by PCI address;
    ``sizing``: default CSIT's for a node whose memory is unknown; ``dpdk_more``: the
    family's devices' lines in the ``dpdk`` section)."""
    check_ports(node, config)
    if sizing is None:
        sizing = sizing_for(options, None, None)
    workers = worker_cores(node, config, options)
    queues = rx_queues(options, workers)
    api_socket = posixpath.join(posixpath.dirname(options.cli_socket), "api.sock")
    lines = [
        f"# VPP startup.conf for {node.key}, written by the ndrpdr vpp driver:",
        f"# {config.mode}, {config.cores} worker core(s), frames up to "
        f"{config.max_frame_size_b} B.",
        *scaled_comment(sizing),
        "unix {",
        "  nodaemon",
        f"  log {options.log_file}",
        f"  cli-listen {options.cli_socket}",
        "  cli-no-pager",
        "  full-coredump",
        "}",
        *api_sections(node.key, api_socket),
        *memory_sections(sizing),
        "cpu {",
        f"  main-core {main_core(options, workers, config)}",
    ]
    if workers:
        lines.append(f"  corelist-workers {cores.corelist(workers)}")
    lines += ["}", *buffers_section(sizing)]
    nics = [(str(port.pci_address), interface_name(port)) for port in config.ports]
    lines += dpdk_lines(
        node, config, options, queues, nics=nics, uio_driver=uio_driver(node), more=dpdk_more
    )
    lines += [
        "plugins {",
        f"  plugin default {{ {'enable' if options.default_plugins else 'disable'} }}",
        "  plugin dpdk_plugin.so { enable }",
    ]
    lines += [
        f"  plugin {file} {{ enable }}" for file in plugin_files(options, family_plugins(config))
    ]
    lines.append("}")
    return "\n".join(lines) + "\n"
