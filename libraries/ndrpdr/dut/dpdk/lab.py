"""Lab set-up of a DPDK DUT host, as commands through the node's NodeAccess.

On a lab host a DPDK application drives the NICs itself: each DUT port's
PCI device is bound to a user-space I/O driver (vfio-pci by default) and
the application's memory comes from hugepages. Both are done with sysfs
writes through ``NodeSteps`` (so the same code works over SSH, in a
namespace or locally, and a recording access can check every command):

* ``PciBinding`` binds a device the way ``dpdk-devbind.py -b`` does: set
  ``driver_override``, unbind the current driver, ``drivers_probe``; it
  refuses a device whose kernel interface has routes (likely the
  management port). ``restore`` gives the device back to the driver it had.
* ``Hugepages`` makes sure at least N pages of one size are reserved
  (``nr_hugepages``, never lowered) and that a hugetlbfs is mounted
  (mounting one at /dev/hugepages if none is, unmounted again on restore).

``ndrpdr.dut.dpdk.setup`` uses both for a DPDK application's ports and memory.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from ndrpdr.dut.base import DutError
from ndrpdr.dut.dpdk.options import NO_BINDING
from ndrpdr.dut.nodesteps import NodeSteps

#: Where sysfs lists PCI devices, and drivers.
PCI_DEVICES = "/sys/bus/pci/devices"
PCI_DRIVERS = "/sys/bus/pci/drivers"
#: Writing a device address here makes the kernel probe drivers for it.
PCI_PROBE = "/sys/bus/pci/drivers_probe"
#: Where hugetlbfs is mounted when the host has no such mount.
HUGEPAGE_MOUNT = "/dev/hugepages"

#: A PCI address as sysfs names devices (domain:bus:device.function, lower case).
_PCI_ADDRESS = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-1][0-9a-f]\.[0-7]")
#: A kernel driver name (a sysfs directory name).
_DRIVER = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Writes $1 and a newline to the file $2 (a sysfs attribute).
_WRITE_SCRIPT = 'printf "%s\\n" "$1" > "$2"'


def check_pci_address(node: str, driver: str, port: str, address: str | None) -> str:
    """``address`` in sysfs form (lower case), or DutError naming the port."""
    if address is None:
        raise DutError(
            f"{node} ({driver}): configure: port {port} has no pci_address; with pmd pci every "
            'DUT port needs its PCI address (e.g. pci_address: "0000:17:00.0")'
        )
    normal = address.lower()
    if not _PCI_ADDRESS.fullmatch(normal):
        raise DutError(
            f"{node} ({driver}): configure: port {port} pci_address {address!r} is not a PCI "
            "address (domain:bus:device.function, e.g. 0000:17:00.0)"
        )
    return normal


def check_driver_name(value: str) -> bool:
    """True when ``value`` can be a kernel driver name (safe as a sysfs path part)."""
    return bool(_DRIVER.fullmatch(value))


def dpdk_port_order(addresses: Sequence[str]) -> tuple[int, ...]:
    """The DPDK port id of each PCI device in ``addresses``.

    DPDK probes the allowed (``-a``) devices in PCI bus order, whatever the
    order of the ``-a`` arguments: port 0 is the lowest address.
    """
    ranked = sorted(addresses)
    return tuple(ranked.index(address) for address in addresses)


def write_sysfs(steps: NodeSteps, step: str, path: str, value: str) -> None:
    """Write ``value`` (and a newline) to the sysfs attribute ``path`` on the node, as root."""
    steps.run(step, ["sh", "-c", _WRITE_SCRIPT, "sh", value, path])


def current_driver(steps: NodeSteps, address: str) -> str | None:
    """The driver bound to PCI device ``address`` now (None when unbound)."""
    result = steps.run(
        f"read the driver of {address}",
        ["readlink", f"{PCI_DEVICES}/{address}/driver"],
        check=False,
    )
    target = result.stdout.strip()
    return target.rsplit("/", 1)[-1] if result.exit_code == 0 and target else None


@dataclasses.dataclass
class _Device:
    """A device to bind: its port key, address, and the driver it had (once read)."""

    port: str
    address: str
    original: str | None = None
    changed: bool = False


class PciBinding:
    """Bind the DUT ports' PCI devices to ``driver`` (vfio-pci...), and give them back."""

    def __init__(
        self, steps: NodeSteps, devices: Sequence[tuple[str, str]], driver: str, *, restore: bool
    ) -> None:
        """``devices``: (port key, PCI address) pairs; ``restore``: rebind at ``restore()``."""
        self._steps = steps
        self._devices = [_Device(port, address) for port, address in devices]
        self._driver = driver
        self._restore = restore
        self._module_loaded = False

    @property
    def driver(self) -> str:
        """The driver the devices are bound to."""
        return self._driver

    def check(self) -> None:
        """DutError unless every device exists on the node."""
        for device in self._devices:
            path = f"{PCI_DEVICES}/{device.address}"
            found = self._steps.run(
                f"find PCI device {device.address} (port {device.port})",
                ["test", "-e", path],
                check=False,
            )
            if found.exit_code != 0:
                raise self._steps.error(
                    "configure",
                    f"port {device.port}: no PCI device {device.address} on the node "
                    f"({path} does not exist; see lspci -D)",
                )

    def apply(self) -> None:
        """Bind every device not yet bound to the driver (a device already bound is left)."""
        if self._driver == NO_BINDING:
            return
        for device in self._devices:
            self._bind(device)

    def _bind(self, device: _Device) -> None:
        steps, address, driver = self._steps, device.address, self._driver
        original = current_driver(steps, address)
        if original == driver:
            return
        if original is not None:
            self._refuse_if_in_use(device)
        if not self._module_loaded:
            steps.run(f"load the {driver} module", ["modprobe", driver])
            self._module_loaded = True
        device.original, device.changed = original, True
        write_sysfs(
            steps,
            f"set driver_override of {address} to {driver}",
            f"{PCI_DEVICES}/{address}/driver_override",
            driver,
        )
        if original is not None:
            write_sysfs(
                steps,
                f"unbind {address} from {original}",
                f"{PCI_DEVICES}/{address}/driver/unbind",
                address,
            )
        write_sysfs(steps, f"probe {address}", PCI_PROBE, address)
        now = current_driver(steps, address)
        if now != driver:
            problems: list[str] = []
            self._give_back(device, problems)  # whatever restore_driver says
            undo = "".join(f"\nand then: {problem}" for problem in problems)
            raise steps.error(
                f"bind {address} (port {device.port}) to {driver}",
                f"the device is bound to {now or 'no driver'} after the probe; see dmesg "
                f"(vfio-pci needs the IOMMU on, e.g. intel_iommu=on iommu=pt){undo}",
            )

    def _refuse_if_in_use(self, device: _Device) -> None:
        """DutError when a kernel interface of the device has routes (as dpdk-devbind.py checks)."""
        steps = self._steps
        listing = steps.run(
            f"list the interfaces of {device.address}",
            ["ls", f"{PCI_DEVICES}/{device.address}/net"],
            check=False,
        )
        for name in listing.stdout.split() if listing.exit_code == 0 else []:
            routes = steps.output(
                f"read the routes of {name}", ["ip", "-o", "route", "show", "dev", name]
            )
            if routes.strip():
                raise steps.error(
                    f"bind {device.address} (port {device.port}) to {self._driver}",
                    f"its interface {name} has routes, so it looks in use (the management "
                    f"network?): not unbinding it. Routes:\n{routes.strip()}",
                )

    def restore(self, errors: list[str]) -> None:
        """Give each device this binding moved back to its driver (if ``restore``)."""
        if not self._restore:
            return
        for device in self._devices:
            if device.changed:
                self._give_back(device, errors)

    def _give_back(self, device: _Device, errors: list[str]) -> None:
        """Clear the override, unbind, bind the original driver; failures go to ``errors``."""
        steps, address = self._steps, device.address
        device.changed = False
        try:
            write_sysfs(
                steps,
                f"clear driver_override of {address}",
                f"{PCI_DEVICES}/{address}/driver_override",
                "",
            )
            now = current_driver(steps, address)
            if now is not None and now != device.original:
                write_sysfs(
                    steps,
                    f"unbind {address} from {now}",
                    f"{PCI_DEVICES}/{address}/driver/unbind",
                    address,
                )
                now = None
            if now is None and device.original is not None:
                write_sysfs(
                    steps,
                    f"bind {address} to {device.original}",
                    f"{PCI_DRIVERS}/{device.original}/bind",
                    address,
                )
        except DutError as exc:
            errors.append(str(exc))


class Hugepages:
    """At least ``pages`` hugepages of ``size_kb`` reserved (0: as found) and hugetlbfs mounted."""

    def __init__(self, steps: NodeSteps, pages: int, size_kb: int) -> None:
        """``pages``: the minimum to reserve (0: do not change the reservation)."""
        self._steps = steps
        self.pages = pages
        self.size_kb = size_kb
        self._mounted: str | None = None

    @property
    def sysfs_count(self) -> str:
        """The ``nr_hugepages`` file of this page size."""
        return f"/sys/kernel/mm/hugepages/hugepages-{self.size_kb}kB/nr_hugepages"

    def apply(self) -> None:
        """Reserve the pages (never fewer than now) and mount hugetlbfs if nothing is mounted."""
        steps = self._steps
        if self.pages > 0:
            have = self._count("read the hugepage count")
            if have < self.pages:
                write_sysfs(
                    steps,
                    f"reserve {self.pages} hugepages of {self.size_kb} kB",
                    self.sysfs_count,
                    str(self.pages),
                )
                have = self._count("read the hugepage count again")
                if have < self.pages:
                    raise steps.error(
                        "reserve hugepages",
                        f"only {have} of {self.pages} hugepages of {self.size_kb} kB could be "
                        "reserved (memory is fragmented); reserve them at boot (kernel command "
                        f"line hugepages={self.pages}) or lower options.hugepages",
                    )
        mounts = steps.output("read the mounts", ["cat", "/proc/mounts"])
        if not any(line.split()[2:3] == ["hugetlbfs"] for line in mounts.splitlines()):
            steps.run("create the hugetlbfs mount point", ["mkdir", "-p", HUGEPAGE_MOUNT])
            steps.run(
                "mount hugetlbfs",
                ["mount", "-t", "hugetlbfs", "-o", f"pagesize={self.size_kb}K", "nodev",
                 HUGEPAGE_MOUNT],
            )  # fmt: skip
            self._mounted = HUGEPAGE_MOUNT

    def _count(self, step: str) -> int:
        text = self._steps.output(step, ["cat", self.sysfs_count]).strip()
        if not text.isdigit():
            raise self._steps.error(step, f"{self.sysfs_count} reads {text!r}, not a count")
        return int(text)

    def remove_files(self, prefix: str, errors: list[str]) -> None:
        """Remove hugepage files a process with ``--file-prefix prefix`` left in any mount."""
        script = (
            "for d in $(awk '$3 == \"hugetlbfs\" {print $2}' /proc/mounts); do "
            'rm -f -- "$d/$1"map_*; done'
        )
        self._steps.undo(
            errors, "remove leftover hugepage files", ["sh", "-c", script, "sh", prefix]
        )

    def restore(self, errors: list[str]) -> None:
        """Unmount the hugetlbfs this object mounted (the reservation stays)."""
        mounted, self._mounted = self._mounted, None
        if mounted is not None:
            self._steps.undo(errors, "unmount hugetlbfs", ["umount", mounted])
