"""The guest VPP's startup.conf and CLI script: FD.io CSIT's ``vppl2xc`` / ``vppip4noarp`` VM.

CSIT's VM VPP (``QemuUtils.create_kernelvm_config_vpp``) runs with
``unix { nodaemon cli-listen exec <running.exec> }``, a socket server,
512M main heap and statistics segment with per-node counters, 107520
buffers per NUMA node, main core 0 and workers on the VM's other vCPUs,
the default plugins off but dpdk and ping, its two virtio-net ports with
as many RX queues as the DUT's, ``no-multi-seg`` and
``no-tx-checksum-offload`` (without jumbo frames); the running
configuration is the family's lines (``resources/templates/vm/``).

The stand-in runs that VPP on the host: the guest's main and data-plane
CPUs, its files in the guest's run directory (API segment prefix and
sockets of its own), the ports ``virtio_user`` devices listening on the
vhost-user sockets (``no-pci``; ``no-hugetlb`` on a node without
hugepages); VPP names them ``VirtioUser0`` and ``VirtioUser1`` (its dpdk
plugin's name for ``net_virtio_user``). Not run here (VPP's build cannot
run on this machine): that the names are these and that virtio_user
shares VPP's buffer memory with the DUT's VPP are unverified; a lab with
QEMU runs CSIT's VM instead.

Pure functions, no I/O.
"""

from __future__ import annotations

from ndrpdr.dut import cores
from ndrpdr.dut.guest.plan import QUEUE_SIZE, VM_PCI, GuestPlan

#: CSIT's VM VPP sizes.
MAIN_HEAP = "512M"
STATSEG = "512M"
BUFFERS_PER_NUMA = 107520
PLUGINS = ("dpdk_plugin.so", "ping_plugin.so")


def exec_script(plan: GuestPlan) -> str:
    """The running configuration: the family's lines, one a line."""
    return "".join(f"{line}\n" for line in plan.commands)


def _vdevs(plan: GuestPlan) -> list[str]:
    return [
        f"  vdev virtio_user{index},path={socket},server=1,queue_size={QUEUE_SIZE},"
        f"queues={plan.queues}"
        for index, socket in enumerate(plan.sockets)
    ]


def startup_conf(plan: GuestPlan, *, in_vm: bool = False) -> str:
    """The guest VPP's startup.conf (``in_vm``: inside CSIT's VM, its files in the VM's own
    ``/run`` and ``/tmp``; else the host's stand-in, its files in the run directory)."""
    run, prefix = plan.run_dir, plan.prefix
    if in_vm:
        main, workers = "0", f"1-{plan.smp - 1}" if plan.smp > 1 else ""
        files = ["  cli-listen /run/vpp/cli.sock", "  log /tmp/vpp.log"]
        api: list[str] = []
        stats = ""
    else:
        main, workers = str(plan.cpus[0]), cores.corelist(plan.cpus[1:])
        files = [f"  cli-listen {run}/guest-cli.sock", f"  log {run}/guest-vpp.log"]
        api = [
            f"api-segment {{ prefix {prefix} }}",
            f"socksvr {{ socket-name {run}/guest-api.sock }}",
        ]
        stats = f"socket-name {run}/guest-stats.sock "
    lines = [
        "# The guest VPP of a vhost-user family (FD.io CSIT's VM), written by the ndrpdr vpp "
        "driver.",
        "unix {",
        "  nodaemon",
        *files,
        f"  exec {run}/guest-running.exec",
        "}",
        *api,
        f"memory {{ main-heap-size {MAIN_HEAP} }}",
        f"statseg {{ {stats}size {STATSEG} per-node-counters on }}",
        f"buffers {{ buffers-per-numa {BUFFERS_PER_NUMA} }}",
        "cpu {",
        f"  main-core {main}",
        *([f"  corelist-workers {workers}"] if workers else []),
        "}",
        "dpdk {",
    ]
    if in_vm:
        lines += [f"  dev {address}" for address in VM_PCI]
    else:
        lines += ["  no-pci", *([] if plan.hugepages else ["  no-hugetlb"])]
        lines += [f"  file-prefix {prefix}", *_vdevs(plan)]
    lines.append(f"  dev default {{ num-rx-queues {plan.queues} }}")
    if not plan.jumbo:
        lines += ["  no-multi-seg", "  no-tx-checksum-offload"]
    lines += ["}", "plugins {", "  plugin default { disable }"]
    lines += [f"  plugin {name} {{ enable }}" for name in PLUGINS]
    return "\n".join([*lines, "}", ""])


def argv(plan: GuestPlan) -> list[str]:
    """The guest VPP's command line."""
    return [plan.program, "-c", f"{plan.run_dir}/guest-startup.conf"]
