"""Build DPDK's l3fwd example once per DPDK version from Debian's packages, and reuse it.

Sources come from ``dpdk-doc`` (/usr/share/dpdk/examples), the library
from ``libdpdk-dev`` (found with pkg-config), the compiler from ``gcc`` and
``make``. The examples ``l3fwd`` and ``common`` are copied to a build
directory, ``main.c`` is patched so that the Rx offloads l3fwd asks for
are masked by what the device can do (virtual PMDs have no Rx checksum
offload and l3fwd 22.11 requests it unconditionally), and ``make`` builds
it. The finished tree is renamed into ``<cache>/l3fwd-<dpdk version>`` so
that a half-built tree is never taken for a good one.

Nothing here is committed: the sources are read from the installed
package at run time.
"""

from __future__ import annotations

import re

from ndrpdr.dut.base import DutError
from ndrpdr.dut.nodesteps import NodeSteps

#: Where the Debian ``dpdk-doc`` package puts the examples.
EXAMPLES_DIR = "/usr/share/dpdk/examples"
#: Where built binaries are kept between runs.
CACHE_DIR = "/var/cache/ndrpdr"
#: Marks a patched line (so the patch is never applied twice).
PATCH_MARK = "/* ndrpdr: mask by device capabilities */"

#: Debian packages needed, by what is missing.
PACKAGES = "dpdk-doc libdpdk-dev pkg-config make gcc"

_PORT_MASK = re.compile(
    r"(?P<stmt>[ \t]*local_port_conf\.rx_adv_conf\.rss_conf\.rss_hf\s*&=\s*"
    r"dev_info\.flow_type_rss_offloads\s*;)"
)
_QUEUE = re.compile(r"rxq_conf\.offloads\s*=\s*port_conf\.rxmode\.offloads\s*;")


class PatchError(ValueError):
    """l3fwd's main.c does not look as expected, so it cannot be patched."""


def patch_main_c(text: str) -> str:
    """``text`` (l3fwd's main.c) with Rx offloads masked by ``dev_info.rx_offload_capa``.

    Two edits: after the port's RSS hash mask, the port's Rx offloads are
    masked too; the Rx queue's offloads are masked the same way. Each anchor
    must occur exactly once, else PatchError (the DPDK version differs).
    Already patched text is returned unchanged.
    """
    if PATCH_MARK in text:
        return text
    ports = list(_PORT_MASK.finditer(text))
    queues = list(_QUEUE.finditer(text))
    if len(ports) != 1 or len(queues) != 1:
        raise PatchError(
            "expected one 'local_port_conf.rx_adv_conf.rss_conf.rss_hf &= "
            f"dev_info.flow_type_rss_offloads;' (found {len(ports)}) and one "
            f"'rxq_conf.offloads = port_conf.rxmode.offloads;' (found {len(queues)})"
        )
    port, queue = ports[0], queues[0]
    indent = re.match(r"[ \t]*", port.group("stmt"))
    lead = indent.group(0) if indent else "\t\t"
    port_edit = (
        f"{port.group('stmt')}\n{lead}local_port_conf.rxmode.offloads &= "
        f"dev_info.rx_offload_capa; {PATCH_MARK}"
    )
    queue_edit = (
        f"rxq_conf.offloads = port_conf.rxmode.offloads & dev_info.rx_offload_capa; {PATCH_MARK}"
    )
    edits = sorted(
        [(port.start(), port.end(), port_edit), (queue.start(), queue.end(), queue_edit)],
        reverse=True,
    )
    for start, end, replacement in edits:
        text = text[:start] + replacement + text[end:]
    return text


def _has_tool(steps: NodeSteps, tool: str) -> bool:
    try:
        return steps.run(f"check {tool}", [tool, "--version"], check=False).exit_code == 0
    except DutError:  # cannot run it at all
        return False


def dpdk_version(steps: NodeSteps) -> str:
    """The installed DPDK version (pkg-config libdpdk); DutError naming the packages if none."""
    if not _has_tool(steps, "pkg-config"):
        raise steps.error("build l3fwd", f"pkg-config is missing: apt-get install {PACKAGES}")
    result = steps.run(
        "find DPDK (pkg-config)", ["pkg-config", "--modversion", "libdpdk"], check=False
    )
    version = result.stdout.strip()
    if result.exit_code != 0 or not re.fullmatch(r"[0-9][0-9A-Za-z.+~-]*", version):
        raise steps.error(
            "build l3fwd",
            f"pkg-config finds no libdpdk ({result.stderr.strip()}): apt-get install {PACKAGES}",
        )
    return version


def ensure_l3fwd(
    steps: NodeSteps, *, cache_dir: str = CACHE_DIR, examples_dir: str = EXAMPLES_DIR
) -> str:
    """The path of a built, patched l3fwd binary on the node (built now if not cached)."""
    version = dpdk_version(steps)
    target = f"{cache_dir}/l3fwd-{version}"
    binary = f"{target}/l3fwd/build/l3fwd"
    if steps.run("look for a built l3fwd", ["test", "-x", binary], check=False).exit_code == 0:
        return binary
    if (
        steps.run(
            "find the DPDK examples", ["test", "-f", f"{examples_dir}/l3fwd/main.c"], check=False
        ).exit_code
        != 0
    ):
        raise steps.error(
            "build l3fwd", f"{examples_dir}/l3fwd/main.c is missing: apt-get install dpdk-doc"
        )
    for tool, package in (("make", "make"), ("cc", "gcc")):
        if not _has_tool(steps, tool):
            raise steps.error("build l3fwd", f"{tool} is missing: apt-get install {package}")
    steps.run("create the l3fwd cache dir", ["mkdir", "-p", cache_dir])
    work = steps.output(
        "create an l3fwd build dir", ["mktemp", "-d", f"{target}.build.XXXXXX"]
    ).strip()
    try:
        steps.run(
            "copy the l3fwd sources",
            ["cp", "-r", f"{examples_dir}/l3fwd", f"{examples_dir}/common", f"{work}/"],
        )
        main_c = f"{work}/l3fwd/main.c"
        try:
            source = steps.access.get_file(main_c, sudo=True).decode()
        except Exception as exc:  # NodeAccessError, CommandError, UnicodeDecodeError
            raise steps.error("read l3fwd main.c", str(exc)) from exc
        try:
            patched = patch_main_c(source)
        except PatchError as exc:
            raise steps.error(
                "patch l3fwd main.c",
                f"{examples_dir}/l3fwd/main.c of DPDK {version} does not match: {exc}",
            ) from exc
        try:
            steps.access.put_file(patched.encode(), main_c, sudo=True)
        except Exception as exc:
            raise steps.error("write l3fwd main.c", str(exc)) from exc
        steps.run("build l3fwd (make)", ["make", "-C", f"{work}/l3fwd"], timeout_s=600.0)
        steps.run("check the l3fwd binary", ["test", "-x", f"{work}/l3fwd/build/l3fwd"])
        moved = steps.run("keep the l3fwd build", ["mv", "-T", work, target], check=False)
        if (
            moved.exit_code != 0
            and steps.run("look for a built l3fwd", ["test", "-x", binary], check=False).exit_code
            != 0
        ):
            raise steps.error("keep the l3fwd build", moved.stderr.strip())
    finally:
        steps.run("remove the l3fwd build dir", ["rm", "-rf", "--", work], check=False)
    return binary
