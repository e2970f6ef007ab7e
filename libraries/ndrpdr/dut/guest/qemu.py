"""The guest as a QEMU VM: FD.io CSIT's command line and init script (``QemuUtils``).

CSIT boots a kernel VM (``add_default_params``, ``add_kernelvm_params``,
``add_vhost_user_if``): KVM, ``-cpu host``, machine ``pc`` with
``mem-merge=off``, ``smp`` vCPUs in one socket, 4 GiB of shared hugepage
memory (``memory-backend-file ... share=on``, needed by vhost-user), the
serial console to a file, the host's root file system read-only over 9p,
its kernel and initrd, ``init=`` a script of its own; and per vhost-user
port a chardev listening on the socket (``server=on``), a vhost-user netdev
with the DUT's queue count and a ``virtio-net-pci`` device at PCI slot
6 or 7 with MAC ``52:54:00:00:01:0<n>``, ``mq=on``, checksum, GSO and TSO
off, rings of 1024 (``rx_queue_size``, ``tx_queue_size``).

Differences, on purpose: QEMU runs in the foreground as a process of the
driver (no ``-daemonize``: it is ended by its PID) under ``taskset`` on the
guest's CPUs, where CSIT pins each vCPU thread after the start.

The init script is CSIT's ``resources/templates/vm/init.sh`` in steps:
pseudo-terminals, tmpfs on ``/run`` and ``/tmp``, 2M hugepages, the two
virtio-net ports bound to vfio-pci (no-IOMMU mode), then the guest's
program, then power off.

Pure functions, no I/O.
"""

from __future__ import annotations

import shlex

from ndrpdr.dut.guest import testpmd, vpp
from ndrpdr.dut.guest.plan import QUEUE_SIZE, VM_MEMORY_MB, VM_PCI, GuestPlan

#: The VM's hugepages (CSIT: 512 of 2M) and where QEMU's shared memory comes from.
VM_HUGEPAGES = 512
HUGEPAGE_DIR = "/dev/hugepages"


def mac(index: int) -> str:
    """The MAC of the VM's port ``index`` (1, 2): CSIT's ``52:54:00:00:<vm>:<n>``, VM 1."""
    return f"52:54:00:00:01:{index:02x}"


def init_path(plan: GuestPlan) -> str:
    """The init script's path (seen in the VM through the host's root)."""
    return f"{plan.run_dir}/init.sh"


def program_line(plan: GuestPlan) -> str:
    """The command the VM runs: testpmd, or VPP on the startup.conf written for the VM."""
    if plan.is_vpp:
        return shlex.join([plan.program, "-c", f"{plan.run_dir}/guest-startup.conf"])
    return shlex.join(testpmd.vm_argv(plan))


def vm_startup_conf(plan: GuestPlan) -> str:
    """The VM's VPP startup.conf (``ndrpdr.dut.guest.vpp``, in the VM)."""
    return vpp.startup_conf(plan, in_vm=True)


def init_script(plan: GuestPlan) -> str:
    """The VM's init (CSIT's ``init.sh``): mounts, vfio-pci for both ports, the program."""
    lines = [
        "#!/bin/bash",
        "mkdir -p /dev/pts /dev/hugepages /dev/shm",
        'mount -t devpts -o "rw,noexec,nosuid,gid=5,mode=0620" devpts /dev/pts || true',
        'mount -t tmpfs -o "rw,noexec,nosuid,size=10%,mode=0755" tmpfs /run',
        'mount -t tmpfs -o "rw,noexec,nosuid,size=10%,mode=0755" tmpfs /tmp',
        'mount -t hugetlbfs -o "rw,relatime,pagesize=2M" hugetlbfs /dev/hugepages',
        "echo Y > /sys/module/vfio/parameters/enable_unsafe_noiommu_mode",
    ]
    for address in VM_PCI:
        device = f"/sys/bus/pci/devices/{address}"
        lines += [
            f"echo {address} > {device}/driver/unbind",
            f"echo vfio-pci > {device}/driver_override",
            f"echo {address} > /sys/bus/pci/drivers/vfio-pci/bind",
        ]
    return "\n".join([*lines, "mkdir -p /var/run/vpp", program_line(plan), "poweroff -f", ""])


def argv(plan: GuestPlan) -> list[str]:
    """QEMU's command line for the guest VM (``plan.qemu`` set)."""
    image = plan.qemu
    assert image is not None
    smp = plan.smp
    args = [
        "taskset", "-c", ",".join(str(cpu) for cpu in plan.cpus),
        image.binary,
        "-nodefaults", "-name", "vnf1,debug-threads=on", "-no-user-config", "-nographic",
        "-enable-kvm", "-cpu", "host", "-machine", "pc,accel=kvm,usb=off,mem-merge=off",
        "-smp", f"{smp},sockets=1,cores={smp},threads=1",
        "-object", f"memory-backend-file,id=mem,size={VM_MEMORY_MB}M,"
        f"mem-path={HUGEPAGE_DIR},share=on",
        "-m", f"{VM_MEMORY_MB}M", "-numa", "node,memdev=mem",
        "-serial", f"file:{plan.run_dir}/serial.log",
        "-fsdev", "local,id=root9p,path=/,security_model=none",
        "-device", "virtio-9p-pci,fsdev=root9p,mount_tag=virtioroot",
        "-kernel", image.kernel, "-initrd", image.initrd,
        "-append", "ro rootfstype=9p rootflags=trans=virtio root=virtioroot console=ttyS0 "
        f"tsc=reliable hugepages={VM_HUGEPAGES} hugepagesz=2M init={init_path(plan)} fastboot",
    ]  # fmt: skip
    for index, socket in enumerate(plan.sockets, start=1):
        queues = plan.queues
        args += [
            "-chardev", f"socket,id=char{index},path={socket},server=on",
            "-netdev", f"vhost-user,id=vhost{index},chardev=char{index},queues={queues}",
            "-device", f"virtio-net-pci,netdev=vhost{index},mac={mac(index)},"
            f"addr={index + 5}.0,mq=on,vectors={2 * queues + 2},csum=off,gso=off,"
            f"guest_tso4=off,guest_tso6=off,guest_ecn=off,"
            f"rx_queue_size={QUEUE_SIZE},tx_queue_size={QUEUE_SIZE}",
        ]  # fmt: skip
    return args
