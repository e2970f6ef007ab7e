"""Hardware a VPP family needs besides its ports: QAT crypto, DSA DMA, NIC flow offload.

FD.io CSIT's hardware suites (``tests/vpp/perf``: ``*hwasync*``,
``*gtpuhw*``, ``*memif-dma*``) need a device of the DUT node. A family's
VPP set-up names one ``HardwareNeed`` (``hardware``; None: it needs none),
and each says, as CSIT does it:

- ``missing``: why the node cannot run the family (no such device in its
  topology entry, ports VPP does not drive through DPDK): the test is
  skipped with that text; None when it can;
- ``dpdk_lines``: lines inside startup.conf's ``dpdk { }`` section;
- ``prepare``: the node's set-up before VPP starts, run through ``run``
  (step, argv) -> stdout; it returns the DMA work queues it enabled (empty
  for the others);
- ``startup_lines``: startup.conf sections of what ``prepare`` returned
  (the DSA's ``dsa`` section).

``QatCrypto`` (CSIT's ``Setup suite topology interfaces | cryptohw``:
``QATUtil.crypto_device_init``, and ``Add DPDK Cryptodev``): for each
``cryptodev`` QAT of the node (``ndrpdr.topology.devices``), load its
module, ``adf_ctl <qat_dev> restart`` and ``status``, create ``numvfs``
virtual functions (``sriov_numvfs`` under ``/sys/bus/pci/drivers/<driver>``)
and bind each to vfio-pci (but on c4xxx); startup.conf gets one ``dev
<vf> { num-rx-queues 1 }`` per data-plane worker, spread over the devices
(the VF addresses CSIT computes from the PF's, ``CryptoDevice.vf_address``)
and ``uio-driver vfio-pci``. VPP's dpdk plugin then offers the VFs as an
async crypto engine, which ``set ipsec async mode on`` / ``set wireguard
async mode on`` (the families' lines) use.

``DsaDma`` (CSIT's ``Enable DMA WQs on all DUTs``: DMAUtil): for each
Intel DSA among the node's ``bus`` devices, read its sysfs entry (``grep
-H . /sys/bus/pci/devices/<pci>/dsa*/*``: its name, engines, groups, work
queues and their limits), disable it, configure as many groups, engines
and dedicated user work queues as the DUT has workers (divided among the
node's ``bus`` devices, at least one each) with ``accel-config``, enable
it and them. The work queues (``wq0.0``...) go to startup.conf (``dsa {
dev wq0.0 }``; the family loads ``dma_intel_plugin.so``), as CSIT's
``create_vpp_startup_config_dma`` writes them for its container's VPP.

``FlowOffload`` (CSIT's ``Vpp Enable GTPU Offload rx``): nothing to prepare;
the family's own line (``set flow-offload gtpu hw <port> rx <tunnel>``)
asks the NIC to classify the tunnel's packets, which VPP's DPDK plugin
does through rte_flow on the NICs CSIT runs it on (Intel X710/XL710/XXV710
and E810); other ports skip the test.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Protocol

from ndrpdr.topology.devices import BusDevice, CryptoDevice, bus_devices, crypto_devices
from ndrpdr.topology.model import Node

#: Runs one preparation step on the node: (step, argv) -> its stdout (a failure raises).
Runner = Callable[[str, Sequence[str]], str]
#: The kernel driver VPP's DPDK plugin takes the QAT virtual functions and NICs with.
VFIO = "vfio-pci"
#: QAT drivers whose virtual functions CSIT leaves on their own driver.
QAT_KEEP_VF_DRIVER = ("c4xxx",)
#: NIC models (CSIT's ``model`` of an interface) whose rte_flow classifies GTP-U.
FLOW_OFFLOAD_MODELS = ("Intel-X710", "Intel-XL710", "Intel-XXV710", "Intel-E810")
#: CSIT's settings of a DSA work queue (DMAUtil.enable_dma_device).
DSA_WQ_PRIORITY = 10


class HardwareNeed(Protocol):
    """A device a family needs on each VPP DUT (the module docstring)."""

    @property
    def what(self) -> str:
        """The device in a few words ("a QAT crypto device")."""
        ...

    def missing(self, node: Node, ports: Sequence[str]) -> str | None:
        """Why ``node`` (its ports ``ports`` on the test's path) cannot run it, or None."""
        ...

    def dpdk_lines(self, node: Node, workers: int) -> list[str]:
        """Lines inside startup.conf's ``dpdk`` section for ``workers`` data-plane workers."""
        ...

    def prepare(self, node: Node, workers: int, run: Runner) -> tuple[str, ...]:
        """Set the device up before VPP starts; the DMA work queues enabled (else empty)."""
        ...

    def startup_lines(self, prepared: tuple[str, ...]) -> list[str]:
        """startup.conf sections of what ``prepare`` returned."""
        ...


class Prepared:
    """What a driver prepared last, so each device is set up once per need and worker count
    (CSIT sets its QATs up in the suite set-up), with VPP stopped first (``stop``)."""

    def __init__(self) -> None:
        self._for: tuple[str, int] | None = None
        self._gave: tuple[str, ...] = ()

    def lines(
        self, need: HardwareNeed, node: Node, workers: int, stop: Callable[[], None], run: Runner
    ) -> list[str]:
        """The startup.conf lines of what ``need`` gave (the DSA's work queues), preparing it
        first unless it was prepared for these workers last."""
        key = (repr(need), workers)
        if key != self._for:
            stop()
            self._for = None
            self._gave = need.prepare(node, workers, run)
            self._for = key
        return need.startup_lines(self._gave)


def _port_kind(node: Node) -> str:
    return str(node.options.get("port_kind", "dpdk"))


def _dpdk_problem(node: Node, what: str) -> str | None:
    kind = _port_kind(node)
    if kind == "dpdk":
        return None
    return (
        f"{node.key}'s VPP drives its ports as {kind} (options.port_kind): {what} goes to VPP's "
        "DPDK plugin with the NICs (port_kind: dpdk, a lab node)"
    )


def _listing(node: Node, field: str, devices: Sequence[CryptoDevice | BusDevice]) -> str:
    if not devices:
        return f"nodes.{node.key}.{field} lists none"
    return f"nodes.{node.key}.{field} lists " + ", ".join(f"{d.key} ({d.model})" for d in devices)


@dataclasses.dataclass(frozen=True)
class QatCrypto:
    """Intel QAT virtual functions for VPP's DPDK cryptodev engine (the module docstring)."""

    @property
    def what(self) -> str:
        """In words."""
        return "a QAT crypto device"

    def devices(self, node: Node) -> tuple[CryptoDevice, ...]:
        """The node's QATs (``cryptodev`` entries with a ``qat_*`` module)."""
        return tuple(d for d in crypto_devices(node) if d.is_qat)

    def missing(self, node: Node, ports: Sequence[str]) -> str | None:
        """No QAT in the node's ``cryptodev`` field, or ports not under DPDK."""
        if not self.devices(node):
            listed = _listing(node, "cryptodev", crypto_devices(node))
            return (
                f"{node.key} has no QAT crypto device ({listed}; CSIT's field: cryptodev: "
                "{device1: {pci_address, driver, model, module: qat_4xxx, numvfs, qat_dev}})"
            )
        return _dpdk_problem(node, "the QAT's virtual functions")

    def dpdk_lines(self, node: Node, workers: int) -> list[str]:
        """``dev <vf> { num-rx-queues 1 }``: ``workers`` VFs spread over the QATs; vfio-pci."""
        qats = self.devices(node)
        lines: list[str] = []
        for device in qats:
            for index in range(workers // len(qats)):
                vf = device.vf_address(index + 1)
                lines += [f"  dev {vf} {{", "    num-rx-queues 1", "  }"]
        if node.extra.get("uio_driver") != VFIO:
            lines.append(f"  uio-driver {VFIO}")
        return lines

    def prepare(self, node: Node, workers: int, run: Runner) -> tuple[str, ...]:
        """Module, adf_ctl restart and status, VFs created and bound to vfio-pci."""
        for device in self.devices(node):
            what = f"QAT {device.key} ({device.pci_address})"
            run(f"{what}: load {device.module}", ["modprobe", device.module])
            adf = [device.qat_dev] if device.qat_dev else []
            run(f"{what}: restart", ["adf_ctl", *adf, "restart"])
            run(f"{what}: status", ["adf_ctl", *adf, "status"])
            if device.numvfs > 0:
                numvfs = f"/sys/bus/pci/drivers/{device.driver}/{device.pci_address}/sriov_numvfs"
                run(f"{what}: create {device.numvfs} VFs", _write(str(device.numvfs), numvfs))
            if device.driver in QAT_KEEP_VF_DRIVER:
                continue
            for vf in range(device.numvfs):
                _bind_vf(run, what, device.pci_address, vf)
        return ()

    def startup_lines(self, prepared: tuple[str, ...]) -> list[str]:
        """None: the VFs are in the ``dpdk`` section (``dpdk_lines``)."""
        return []


def _write(text: str, path: str) -> list[str]:
    """argv that writes ``text`` to the sysfs file ``path`` (as root through the access)."""
    return ["sh", "-c", f'echo "{text}" > {path}']


def _bind_vf(run: Runner, what: str, pf: str, vf: int) -> None:
    """VF ``vf`` of ``pf`` off its driver and onto vfio-pci (CSIT's pci_vf_driver_(un)bind)."""
    link = f"/sys/bus/pci/devices/{pf}/virtfn{vf}"
    address = run(f"{what}: VF {vf} address", ["readlink", "-f", link]).strip().rsplit("/", 1)[-1]
    step = f"{what}: VF {vf} ({address}) to {VFIO}"
    run(step, ["sh", "-c", f'[ ! -e {link}/driver ] || echo "{address}" > {link}/driver/unbind'])
    run(step, _write(VFIO, f"{link}/driver_override"))
    run(step, _write(address, f"/sys/bus/pci/drivers/{VFIO}/bind"))
    run(step, _write("", f"{link}/driver_override"))


@dataclasses.dataclass(frozen=True)
class DsaInfo:
    """What a DSA's sysfs entry says (CSIT's ``get_dma_resource``)."""

    name: str
    engines: tuple[str, ...]
    groups: tuple[str, ...]
    wqs: tuple[str, ...]
    max_transfer_size: int
    max_work_queues_size: int
    max_batch_size: int


_DSA_ENTRY = re.compile(r"/(dsa\d+)/((engine|group|wq)\d+\.\d+):?$")
_DSA_VALUE = re.compile(r"/(dsa\d+)/([a-z_]+):(.+)$")


def dsa_info(listing: str, where: str) -> DsaInfo:
    """Parse ``grep -H . <dev>/dsa*/* 2>&1``: values of files, names of the directories it
    could not read (engines, groups, work queues). ValueError naming ``where`` if incomplete."""
    name = ""
    values: dict[str, str] = {}
    found: dict[str, list[str]] = {"engine": [], "group": [], "wq": []}
    for token in listing.split():
        if (entry := _DSA_ENTRY.search(token)) is not None:
            name = entry.group(1)
            found[entry.group(3)].append(entry.group(2))
        elif (value := _DSA_VALUE.search(token)) is not None:
            name = value.group(1)
            values[value.group(2)] = value.group(3)
    try:
        transfer, queues, batch = (
            int(values[k]) for k in ("max_transfer_size", "max_work_queues_size", "max_batch_size")
        )
    except (KeyError, ValueError) as exc:
        raise ValueError(f"{where}: the DSA's sysfs entry gives no {exc}") from exc
    if not name or not all(found.values()):
        raise ValueError(f"{where}: the DSA's sysfs entry lists no engines, groups or wqs")
    engines, groups, wqs = (tuple(found[k]) for k in ("engine", "group", "wq"))
    return DsaInfo(name, engines, groups, wqs, transfer, queues, batch)


def dsa_commands(info: DsaInfo, count: int) -> list[list[str]]:
    """The accel-config lines that give ``info``'s DSA ``count`` dedicated user work queues
    (after it is disabled), as CSIT's ``enable_dma_device`` runs them."""
    name = info.name
    engines = info.engines[:count]
    lines = [["accel-config", "config-device", name]]
    lines += [
        ["accel-config", "config-group", f"{name}/{group}", "--read-buffers-reserved=0"]
        for group in info.groups[:count]
    ]
    lines += [
        ["accel-config", "config-engine", f"{name}/{engine}", f"--group-id={index}"]
        for index, engine in enumerate(engines)
    ]
    for index, wq in enumerate(info.wqs[:count]):
        lines.append(
            ["accel-config", "config-wq", f"{name}/{wq}", f"--group-id={index % len(engines)}",
             "--type=user", f"--priority={DSA_WQ_PRIORITY}", "--block-on-fault=1",
             f"--wq-size={info.max_work_queues_size // count}", "--mode=dedicated",
             f"--name={name}_{index}", f"--max-batch-size={info.max_batch_size}",
             f"--max-transfer-size={info.max_transfer_size // count}", "--driver=user"]
        )  # fmt: skip
    lines.append(["accel-config", "enable-device", name])
    lines.append(["accel-config", "enable-wq", *(f"{name}/{wq}" for wq in info.wqs[:count])])
    return lines


@dataclasses.dataclass(frozen=True)
class DsaDma:
    """Intel DSA work queues for the second VPP's memif copies (the module docstring)."""

    @property
    def what(self) -> str:
        """In words."""
        return "a DSA DMA device"

    def devices(self, node: Node) -> tuple[BusDevice, ...]:
        """The node's DSAs (``bus`` entries whose model names Intel-DSA)."""
        return tuple(d for d in bus_devices(node) if d.is_dsa)

    def missing(self, node: Node, ports: Sequence[str]) -> str | None:
        """No Intel DSA among the node's ``bus`` devices."""
        if self.devices(node):
            return None
        listed = _listing(node, "bus", bus_devices(node))
        return (
            f"{node.key} has no DSA DMA device ({listed}; CSIT's field: bus: {{device1: "
            "{pci_address, driver: idxd, model: Intel-DSA}})"
        )

    def dpdk_lines(self, node: Node, workers: int) -> list[str]:
        """None: the DSA has a section of its own (``startup_lines``)."""
        return []

    def prepare(self, node: Node, workers: int, run: Runner) -> tuple[str, ...]:
        """Each DSA disabled, given its work queues and enabled; the queues (``wq0.0``...)."""
        every = len(bus_devices(node))  # CSIT divides by all the node's bus devices
        count = max(1, workers // every) if workers > 1 else 1
        enabled: list[str] = []
        for device in self.devices(node):
            what = f"DSA {device.key} ({device.pci_address})"
            listing = run(
                f"{what}: read its sysfs entry",
                ["sh", "-c", f"grep -H . /sys/bus/pci/devices/{device.pci_address}/dsa*/* 2>&1"],
            )
            info = dsa_info(listing, f"{node.key}: {what}")
            state = run(f"{what}: state", ["cat", f"/sys/bus/dsa/devices/{info.name}/state"])
            if state.strip() != "disabled":
                run(f"{what}: disable", ["accel-config", "disable-device", "-f", info.name])
            for argv in dsa_commands(info, count):
                run(f"{what}: {argv[1]}", argv)
            enabled += info.wqs[:count]
        return tuple(enabled)

    def startup_lines(self, prepared: tuple[str, ...]) -> list[str]:
        """``dsa { dev <wq> ... }``: the work queues ``prepare`` enabled (CSIT's
        ``add_dma_dev``)."""
        if not prepared:
            return []
        return ["dsa {", *(f"  dev {wq}" for wq in prepared), "}"]


@dataclasses.dataclass(frozen=True)
class FlowOffload:
    """A NIC that classifies GTP-U packets to their tunnel (the module docstring)."""

    @property
    def what(self) -> str:
        """In words."""
        return "a NIC with GTP-U flow offload"

    def missing(self, node: Node, ports: Sequence[str]) -> str | None:
        """Ports not under DPDK, or a port whose NIC model CSIT does not offload on."""
        problem = _dpdk_problem(node, "GTP-U flow offload")
        if problem is not None:
            return problem
        for port in ports:
            model = node.interfaces[port].model if port in node.interfaces else None
            if model is None or not model.startswith(FLOW_OFFLOAD_MODELS):
                return (
                    f"{node.key}'s {port} is a {model or 'NIC of no model'} (interfaces.{port}."
                    f"model): GTP-U flow offload runs on {', '.join(FLOW_OFFLOAD_MODELS)}"
                )
        return None

    def dpdk_lines(self, node: Node, workers: int) -> list[str]:
        """None."""
        return []

    def prepare(self, node: Node, workers: int, run: Runner) -> tuple[str, ...]:
        """Nothing to prepare."""
        return ()

    def startup_lines(self, prepared: tuple[str, ...]) -> list[str]:
        """None."""
        return []
