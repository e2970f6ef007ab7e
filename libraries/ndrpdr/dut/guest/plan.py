"""What the guest of one vhost-user test is: CSIT's VM, or a DPDK process standing in for it.

FD.io CSIT's vhost suites (``Configure chains of NFs connected via
vhost-user``, ``QemuManager``, ``QemuUtils``) start one QEMU VM with two
virtio-net ports on vhost-user sockets that QEMU listens on, rings of
1024 descriptors (``perf_qemu_qsz``: ``rx_queue_size``/``tx_queue_size``),
as many queues as the DUT's RX queues per port (``rxq_count_int``), 4 GiB
of memory, and CPUs of its own (``CpuUtils.get_affinity_nf`` with
``auto_scale``: a main thread on the physical core after the DUT's
workers, then as many data-plane cores as the DUT's, each core's SMT
siblings too). Inside runs CSIT's ``vnf``: testpmd (``testpmd_io``) or
VPP (``vppl2xc``, ``vppip4noarp``) on the two ports.

Here the guest is, by default, a DPDK process on the host standing in for
the VM: the same program with the same settings, its two ports
``virtio_user`` devices listening on the two sockets
(``server=1``, ``queue_size=1024``), on the CPUs CSIT gives the VM
(``GuestPlan.threads``). With a QEMU binary, kernel and initrd in the
node's options (``guest_qemu``, ``guest_kernel``, ``guest_initrd``) it
is a VM as CSIT's (``ndrpdr.dut.guest.qemu``).

Pure data, no I/O.
"""

from __future__ import annotations

import dataclasses
import posixpath

from ndrpdr.dut.smt import ThreadPlan

#: CSIT's virtio ring size (``perf_qemu_qsz``), the ``vr1024`` of the ids.
QUEUE_SIZE = 1024
#: CSIT's VM memory [MiB] (``QemuManager._c_default``: ``mem=4096``).
VM_MEMORY_MB = 4096
#: CSIT's MTU for testpmd's ``--max-pkt-len`` (``Constants.MTU_NORMAL`` / ``MTU_JUMBO``).
MTU_NORMAL = 1800
MTU_JUMBO = 9145
#: The guest's two virtio-net PCI addresses in CSIT's VM (QEMU ``addr=6.0`` and ``7.0``).
VM_PCI = ("0000:00:06.0", "0000:00:07.0")
#: Memory of a stand-in without hugepages [MiB] (``-m``; its mbufs fit).
STAND_IN_MEMORY_MB = 1024
#: VPP's names of the DUT's two vhost-user interfaces (created first in a fresh VPP).
VHOST_INTERFACES = ("VirtualEthernet0/0/0", "VirtualEthernet0/0/1")
#: CSIT's vnf names whose guest is a VPP; the others run testpmd.
VPP_GUESTS = ("vppl2xc", "vppip4noarp")


@dataclasses.dataclass(frozen=True)
class QemuImage:
    """A node's VM for the guest: QEMU's binary, the kernel and initrd it boots."""

    binary: str
    kernel: str
    initrd: str


@dataclasses.dataclass(frozen=True)
class GuestPlan:
    """One test's guest: CSIT's ``vnf``, its CPUs, queues, run directory, program and lines.

    ``threads``: the host CPUs (main thread, then data-plane threads);
    ``queues``: queue pairs per port (the DUT's RX queues per port);
    ``run_dir``: the sockets, configuration and log; ``commands``: a VPP
    guest's CLI lines; ``program``: the testpmd or VPP binary;
    ``hugepages``: the DPDK process takes hugepages (else ``--no-huge``);
    ``jumbo``: the test has jumbo frames; ``qemu``: the VM (None: the
    stand-in).
    """

    vnf: str
    threads: ThreadPlan
    queues: int
    run_dir: str
    commands: tuple[str, ...]
    program: str
    hugepages: bool
    jumbo: bool = False
    qemu: QemuImage | None = None

    @property
    def is_vpp(self) -> bool:
        """The guest runs VPP (else testpmd)."""
        return self.vnf in VPP_GUESTS

    @property
    def prefix(self) -> str:
        """The guest's DPDK file prefix and API segment prefix: its run directory's name."""
        return posixpath.basename(self.run_dir.rstrip("/"))

    @property
    def sockets(self) -> tuple[str, str]:
        """The two vhost-user sockets, the guest's side listening (CSIT's ``sock-1-1``, ``-2``)."""
        return (f"{self.run_dir}/sock-1-1", f"{self.run_dir}/sock-1-2")

    @property
    def cpus(self) -> tuple[int, ...]:
        """Every host CPU of the guest: the main thread's, then the data plane's."""
        assert self.threads.main is not None
        return (self.threads.main, *self.threads.cpus)

    @property
    def smp(self) -> int:
        """The VM's vCPUs (CSIT's ``smp``: one per CPU of the guest)."""
        return len(self.cpus)

    @property
    def max_pkt_len(self) -> int:
        """testpmd's ``--max-pkt-len`` (CSIT's ``Constants.get_mtu``)."""
        return MTU_JUMBO if self.jumbo else MTU_NORMAL

    @property
    def text(self) -> str:
        """One line for telemetry: "guest testpmd_io (stand-in) 1T1C: ...; 1 queue(s)"."""
        how = "QEMU VM" if self.qemu is not None else "stand-in on virtio_user"
        return (
            f"guest {self.vnf} ({how}) {self.threads.text}; {self.queues} queue(s) per port, "
            f"rings of {QUEUE_SIZE}"
        )
