"""How much memory VPP's startup.conf asks for: FD.io CSIT's sizes, scaled to what the node holds.

Pure functions, no I/O. CSIT's base startup configuration of a VPP DUT
(``Create base startup configuration of VPP on all DUTs`` and ``Add worker
threads to all DUTs`` in its ``default.robot``, values from its
``VppConfigGenerator`` and ``CpuUtils.get_affinity_vswitch``) gives VPP a
3 GiB main heap (times the suite's ``heap_size_mult``), a 3 GiB statistics
segment, an IPv6 FIB of 2,000,000 hash buckets in a 3 GiB heap, all on
2 MiB hugepages (its ``DEFAULT_HUGEPAGE_SIZE``), and 215,040 buffers per
NUMA node where the test uses SMT (its ``smt_used``; 107,520 where not).

``size_startup`` keeps those values on a node that can hold them and
scales them down by these rules where it cannot, each change one line of
``StartupSizing.scaled`` ("main-heap-size 3G -> 1G: ...") that the driver
puts in the test's record and log:

- Pages: hugepages only for NICs (``port_kind: dpdk``) on a node with free
  hugepages (their size, 2M as CSIT's unless the node's are other), else
  4 KiB pages (ports on Linux interfaces always: VPP and DPDK run there
  with ``no-hugetlb``); ``default-hugepage-size`` is then left out and the
  buffers get ``page-size 4k``.
- Memory: the main heap, statistics segment and buffers come from the
  hugepages when VPP has them (budget: the free hugepages), the IPv6 FIB
  heap and, on 4 KiB pages, all four from ordinary memory (budget: half
  the node's ``MemAvailable``: the rest is the traffic generator's and the
  system's); ``options.memory_mb`` replaces both budgets with one. A pool
  whose CSIT sizes exceed its budget has every size in it multiplied by
  budget / demand, rounded down to a power of two MiB (buffers: to a
  multiple of 1024), never below a floor VPP still runs with; the IPv6
  hash buckets shrink with their heap (CSIT's buckets per byte).
- Unknown memory (``/proc/meminfo`` not readable): no size is scaled.

An option the topology sets (``main_heap_mb``, ``buffers_per_numa``)
wins over the rule (the main heap never below a family's own need) and,
when it differs from CSIT's value, is a line too.
"""

from __future__ import annotations

import dataclasses

#: CSIT's page size for the main heap, statistics segment and (default) hugepages [KiB].
CSIT_PAGE_KB = 2048
#: CSIT's main heap [MiB] (3G, times ``heap_size_mult`` in its large-table suites).
CSIT_MAIN_HEAP_MB = 3072
#: CSIT's statistics segment [MiB] (3G, with ``per-node-counters on``).
CSIT_STATSEG_MB = 3072
#: CSIT's IPv6 FIB: ``ip6 { hash-buckets 2000000 heap-size 3G }``.
CSIT_IP6_HASH_BUCKETS = 2_000_000
CSIT_IP6_HEAP_MB = 3072
#: CSIT's buffers per NUMA node with SMT, and without (``CpuUtils.get_affinity_vswitch``).
CSIT_BUFFERS_SMT = 215_040
CSIT_BUFFERS_NO_SMT = 107_520
#: Memory of one buffer [B]: VPP's 128 B header and 128 B pre-data, 2048 B of data and
#: DPDK's 128 B mbuf header (an estimate for the budget; VPP rounds per page).
BUFFER_FOOTPRINT_B = 2432
#: The smallest sizes scaling goes to [MiB] / buffers (VPP runs a test with them).
MIN_MAIN_HEAP_MB = 256
MIN_STATSEG_MB = 64
MIN_IP6_HEAP_MB = 64
MIN_IP6_HASH_BUCKETS = 65_536
MIN_BUFFERS = 16_384
#: 4 KiB pages [KiB].
SMALL_PAGE_KB = 4

_MIB_KB = 1024


@dataclasses.dataclass(frozen=True)
class NodeMemory:
    """What the node's ``/proc/meminfo`` says VPP can have.

    ``hugepage_kb``: the default hugepage size; ``hugepages_free_mb``:
    free hugepage memory [MiB]; ``available_mb``: ``MemAvailable`` [MiB]
    (None when the file did not say).
    """

    hugepage_kb: int | None
    hugepages_free_mb: int
    available_mb: int | None

    def describe(self) -> str:
        """``MemAvailable 23.1 GiB, no free hugepages`` (for scaling lines)."""
        free = (
            f"{self.hugepages_free_mb} MiB of free {page_text(self.hugepage_kb or 0)} hugepages"
            if self.hugepages_free_mb
            else "no free hugepages"
        )
        avail = "MemAvailable unknown" if self.available_mb is None else (
            f"MemAvailable {gib(self.available_mb)}"
        )  # fmt: skip
        return f"{avail}, {free}"


def parse_meminfo(text: str) -> NodeMemory | None:
    """``/proc/meminfo``'s text as NodeMemory (None when it has neither field we need)."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        words = rest.split()
        if words and words[0].isdigit():
            values[name.strip()] = int(words[0])
    if "MemAvailable" not in values and "HugePages_Free" not in values:
        return None
    size_kb = values.get("Hugepagesize")
    free_mb = values.get("HugePages_Free", 0) * (size_kb or 0) // _MIB_KB
    available = values.get("MemAvailable")
    return NodeMemory(size_kb, free_mb, None if available is None else available // _MIB_KB)


def size_text(mb: int) -> str:
    """A size as VPP reads it: 3072 -> "3G", 768 -> "768M"."""
    return f"{mb // 1024}G" if mb % 1024 == 0 else f"{mb}M"


def page_text(kb: int) -> str:
    """A page size as VPP reads it: 4 -> "4k", 2048 -> "2M", 1048576 -> "1G"."""
    if kb >= _MIB_KB * 1024 and kb % (_MIB_KB * 1024) == 0:
        return f"{kb // (_MIB_KB * 1024)}G"
    return f"{kb // _MIB_KB}M" if kb >= _MIB_KB and kb % _MIB_KB == 0 else f"{kb}k"


def gib(mb: int) -> str:
    """``2.0 GiB`` for 2048 MiB."""
    return f"{mb / 1024:.1f} GiB"


@dataclasses.dataclass(frozen=True)
class StartupSizing:
    """The memory settings of one startup.conf and the lines saying where they differ from
    CSIT's (empty: CSIT's values unscaled)."""

    page_kb: int
    main_heap_mb: int
    statseg_mb: int
    ip6_heap_mb: int
    ip6_hash_buckets: int
    buffers: int
    scaled: tuple[str, ...] = ()

    @property
    def hugepages(self) -> bool:
        """True when the main heap and statistics segment are on hugepages."""
        return self.page_kb > SMALL_PAGE_KB


@dataclasses.dataclass(frozen=True)
class _Region:
    name: str
    csit: int
    floor: int
    unit_b: int  # bytes per unit (1 MiB, or one buffer)


def _pow2_floor(value: float) -> int:
    power = 1
    while power * 2 <= value:
        power *= 2
    return power


def _scaled_value(region: _Region, factor: float) -> int:
    raw = region.csit * factor
    if region.unit_b == 1 << 20:
        return max(region.floor, _pow2_floor(raw))
    return max(region.floor, int(raw) // 1024 * 1024)


def _shown(region: _Region, value: int) -> str:
    return size_text(value) if region.unit_b == 1 << 20 else str(value)


def size_startup(
    memory: NodeMemory | None,
    *,
    lab_nics: bool,
    smt: bool | None,
    memory_mb: int | None = None,
    main_heap_mb: int | None = None,
    buffers_per_numa: int | None = None,
    family_heap_mb: int | None = None,
    family_statseg_mb: int | None = None,
    min_buffers: int = MIN_BUFFERS,
    heap_size_mult: int = 1,
) -> StartupSizing:
    """The memory settings for a node (``memory``: its meminfo, None if unknown).

    ``lab_nics``: the ports are NICs (``port_kind: dpdk``), the only kind that
    may use hugepages. ``smt``: whether the node runs SMT (None: unknown,
    CSIT's labs' SMT value). ``memory_mb``, ``main_heap_mb``,
    ``buffers_per_numa``: the node's options (None: unset).
    ``family_heap_mb`` / ``family_statseg_mb``: what the test's family
    needs, when more than CSIT's base (its large tables), also the least
    scaling leaves them. ``min_buffers``: the fewest buffers scaling leaves
    (memif ports lend VPP's buffers to their rings). ``heap_size_mult``: CSIT's
    multiple of its main heap for the test's family.
    """
    lines: list[str] = []
    huge_kb = memory.hugepage_kb if memory is not None else CSIT_PAGE_KB
    has_huge = memory is None or (memory.hugepages_free_mb > 0 and huge_kb is not None)
    page_kb = (huge_kb or CSIT_PAGE_KB) if lab_nics and has_huge else SMALL_PAGE_KB
    if page_kb != CSIT_PAGE_KB:
        why = (
            "ports on Linux interfaces: VPP and DPDK run on 4 KiB pages (no-hugetlb)"
            if not lab_nics
            else "the node has no free hugepages (4 KiB pages only)"
            if page_kb == SMALL_PAGE_KB
            else "the node's free hugepages are of this size"
        )
        lines.append(
            f"page size {page_text(CSIT_PAGE_KB)} -> {page_text(page_kb)} (memory "
            "main-heap-page-size, statseg page-size, buffers page-size"
            f"{'; memory default-hugepage-size left out' if page_kb == SMALL_PAGE_KB else ''})"
            f": {why}"
        )
    mib = 1 << 20
    main = max(CSIT_MAIN_HEAP_MB * heap_size_mult, family_heap_mb or 0)
    least = min(main, max(MIN_MAIN_HEAP_MB, family_heap_mb or 0))
    heap = _Region("memory main-heap-size", main, least, mib)
    statseg = max(CSIT_STATSEG_MB, family_statseg_mb or 0)
    stat = _Region("statseg size", statseg, max(MIN_STATSEG_MB, family_statseg_mb or 0), mib)
    ip6 = _Region("ip6 heap-size", CSIT_IP6_HEAP_MB, MIN_IP6_HEAP_MB, mib)
    bufs = _Region(
        "buffers buffers-per-numa",
        CSIT_BUFFERS_NO_SMT if smt is False else CSIT_BUFFERS_SMT,
        min_buffers,
        BUFFER_FOOTPRINT_B,
    )
    values = {r.name: r.csit for r in (heap, stat, ip6, bufs)}
    for pool, budget, where in _pools(memory, page_kb, memory_mb, heap, stat, ip6, bufs):
        demand = sum(r.csit * r.unit_b for r in pool)
        if budget is None or demand <= budget * mib:
            continue
        factor = budget * mib / demand
        for r in pool:
            values[r.name] = _scaled_value(r, factor)
            lines.append(
                f"{r.name} {_shown(r, r.csit)} -> {_shown(r, values[r.name])}: {where}, "
                f"CSIT's sizes need {gib(demand // mib)}"
            )
    buckets = CSIT_IP6_HASH_BUCKETS
    if values[ip6.name] < CSIT_IP6_HEAP_MB:
        buckets = max(MIN_IP6_HASH_BUCKETS, CSIT_IP6_HASH_BUCKETS * values[ip6.name] // ip6.csit)
        lines.append(
            f"ip6 hash-buckets {CSIT_IP6_HASH_BUCKETS} -> {buckets}: with the ip6 heap "
            "(CSIT's buckets per byte)"
        )
    for region, option, name in (
        (heap, main_heap_mb, "main_heap_mb"),
        (bufs, buffers_per_numa, "buffers_per_numa"),
    ):
        if option is None:
            continue
        wanted = max(option, region.floor) if region is heap else option  # a family's need
        if wanted != values[region.name]:
            lines.append(
                f"{region.name} {_shown(region, values[region.name])} -> "
                f"{_shown(region, wanted)}: set by options.{name}"
                + ("" if wanted == option else f" ({option}), raised to the family's need")
            )
            values[region.name] = wanted
    return StartupSizing(
        page_kb=page_kb,
        main_heap_mb=values[heap.name],
        statseg_mb=values[stat.name],
        ip6_heap_mb=values[ip6.name],
        ip6_hash_buckets=buckets,
        buffers=values[bufs.name],
        scaled=tuple(lines),
    )


def _pools(
    memory: NodeMemory | None,
    page_kb: int,
    memory_mb: int | None,
    heap: _Region,
    stat: _Region,
    ip6: _Region,
    bufs: _Region,
) -> list[tuple[tuple[_Region, ...], int | None, str]]:
    """The memory pools VPP's regions come from, each with its budget [MiB] (None: unknown)
    and the words saying why."""
    if memory_mb is not None:
        why = f"options.memory_mb gives VPP {memory_mb} MiB"
        return [((heap, stat, ip6, bufs), memory_mb, why)]
    if memory is None:
        return []
    half = None if memory.available_mb is None else memory.available_mb // 2
    ordinary = (
        f"the node has {'4 KiB pages only, ' if page_kb == SMALL_PAGE_KB else ''}"
        f"{'an unknown amount' if half is None else gib(half)} for VPP "
        f"(half of {memory.describe()})"
    )
    if page_kb == SMALL_PAGE_KB:
        return [((heap, stat, ip6, bufs), half, ordinary)]
    huge = f"the node has {memory.hugepages_free_mb} MiB of free {page_text(page_kb)} hugepages"
    return [((heap, stat, bufs), memory.hugepages_free_mb, huge), ((ip6,), half, ordinary)]


#: CSIT's container VPP (``ContainerUtils``' base startup): 2G main heap, 2G statistics
#: segment, 215,040 buffers per NUMA node, on the suite's page size.
CSIT_PEER_MAIN_HEAP_MB = 2048
CSIT_PEER_STATSEG_MB = 2048
CSIT_PEER_BUFFERS = 215_040


def size_peer(dut: StartupSizing) -> StartupSizing:
    """The second VPP's memory (a memif family's; CSIT's container) beside a DUT VPP of ``dut``.

    CSIT's container sizes, scaled by the factor the DUT's statistics
    segment was scaled by (the same budget, no second rule), on the DUT's
    page size when the DUT kept CSIT's sizes, else on 4 KiB pages (the
    hugepages are the DUT's). No IPv6 heap: CSIT's container sets none.
    """
    factor = min(1.0, dut.statseg_mb / CSIT_STATSEG_MB)
    mib = 1 << 20
    regions = (
        _Region("memory main-heap-size", CSIT_PEER_MAIN_HEAP_MB, MIN_MAIN_HEAP_MB, mib),
        _Region("statseg size", CSIT_PEER_STATSEG_MB, MIN_STATSEG_MB, mib),
        _Region("buffers buffers-per-numa", CSIT_PEER_BUFFERS, MIN_BUFFERS, BUFFER_FOOTPRINT_B),
    )
    values = [r.csit if factor >= 1.0 else _scaled_value(r, factor) for r in regions]
    lines = [
        f"{r.name} {_shown(r, r.csit)} -> {_shown(r, value)}: as the DUT's statseg size "
        f"({size_text(CSIT_STATSEG_MB)} -> {size_text(dut.statseg_mb)})"
        for r, value in zip(regions, values, strict=True)
        if value != r.csit
    ]
    page_kb = dut.page_kb if not dut.scaled else SMALL_PAGE_KB
    if page_kb != dut.page_kb:
        lines.append(
            f"page size {page_text(dut.page_kb)} -> {page_text(page_kb)}: the DUT's sizes "
            "were scaled, its hugepages are the DUT's"
        )
    return StartupSizing(
        page_kb=page_kb,
        main_heap_mb=values[0],
        statseg_mb=values[1],
        ip6_heap_mb=0,
        ip6_hash_buckets=0,
        buffers=values[2],
        scaled=tuple(lines),
    )
