"""The guest's testpmd command line: FD.io CSIT's ``testpmd_io`` VNF.

CSIT's VM runs ``dpdk-testpmd`` (``QemuUtils.create_kernelvm_config_testpmd_io``
through ``DpdkUtil.get_testpmd_cmdline``): lcores 0..smp-1, the two
virtio-net ports by PCI address, ``--in-memory``; io forwarding, bursts of
64, 1024 RX and TX descriptors, as many queues as the DUT's, no TX
offloads, 32768 mbufs of 16384 B, 2 ports (mask 0x3), no link check,
``--max-pkt-len`` CSIT's MTU, ``smp - 1`` forwarding cores.

The stand-in runs the same on the host: lcore 0 (main) on the guest's
main CPU, forwarding lcores 1..N on its data-plane CPUs, the ports
``virtio_user`` devices listening on the vhost-user sockets
(``virtio_user_args``); ``--in-memory`` on hugepages, else ``--no-huge``
with a file prefix of its own (DPDK 22.11 refuses the two together).
Both add ``--stats-period``: testpmd without ``-i`` otherwise ends at the
first end of its input.

Pure functions, no I/O.
"""

from __future__ import annotations

from ndrpdr.dut.guest.plan import QUEUE_SIZE, STAND_IN_MEMORY_MB, VM_PCI, GuestPlan

#: CSIT's testpmd settings in the VM (``DpdkUtil``'s defaults and QemuUtils' values).
BURST = 64
DESCRIPTORS = 1024
MBUFS = 32768
MBUF_SIZE = 16384
#: Seconds between testpmd's statistics prints (keeps it running without a terminal).
STATS_PERIOD_S = 10


def virtio_user_args(plan: GuestPlan) -> list[str]:
    """``--vdev`` for each socket: a virtio_user port listening there, CSIT's ring size."""
    args: list[str] = []
    for index, socket in enumerate(plan.sockets):
        spec = f"virtio_user{index},path={socket},server=1,queue_size={QUEUE_SIZE}"
        args += ["--vdev", spec + (f",queues={plan.queues}" if plan.queues > 1 else "")]
    return args


def forwarding_args(plan: GuestPlan) -> list[str]:
    """testpmd's own arguments (after ``--``), CSIT's ``testpmd_io``."""
    return [
        "--forward-mode=io",
        f"--burst={BURST}",
        f"--txd={DESCRIPTORS}",
        f"--rxd={DESCRIPTORS}",
        f"--txq={plan.queues}",
        f"--rxq={plan.queues}",
        "--tx-offloads=0x0",
        "--numa",
        "--auto-start",
        f"--total-num-mbufs={MBUFS}",
        "--nb-ports=2",
        "--portmask=0x3",
        "--disable-link-check",
        f"--max-pkt-len={plan.max_pkt_len}",
        f"--mbuf-size={MBUF_SIZE}",
        f"--nb-cores={plan.smp - 1}",
        f"--stats-period={STATS_PERIOD_S}",
    ]


def stand_in_argv(plan: GuestPlan) -> list[str]:
    """The stand-in: testpmd on the host's guest CPUs, virtio_user ports, in memory."""
    lcores = ",".join(f"{index}@{cpu}" for index, cpu in enumerate(plan.cpus))
    memory = (
        ["--in-memory"] if plan.hugepages  # DPDK's --no-huge is its legacy memory: not with this
        else ["--no-huge", "-m", str(STAND_IN_MEMORY_MB), "--file-prefix", plan.prefix]
    )  # fmt: skip
    return [
        plan.program, "-v", "--lcores", lcores, "--no-pci", *memory,
        *virtio_user_args(plan), "--", *forwarding_args(plan),
    ]  # fmt: skip


def vm_argv(plan: GuestPlan) -> list[str]:
    """testpmd in CSIT's VM: lcores 0..smp-1, the two virtio-net PCI ports."""
    lcores = ",".join(str(index) for index in range(plan.smp))
    return [
        plan.program, "-v", "--lcores", lcores, "-a", VM_PCI[0], "-a", VM_PCI[1],
        "--in-memory", "--", *forwarding_args(plan),
    ]  # fmt: skip
