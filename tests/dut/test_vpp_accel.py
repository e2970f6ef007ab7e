"""The devices of CSIT's hardware families on a fake lab node: set-up, startup.conf, skips.

A QAT is set up as CSIT's ``QATUtil.crypto_device_init`` does it (module,
``adf_ctl`` restart and status, ``sriov_numvfs``, each VF bound to
vfio-pci) and its VFs go into startup.conf's ``dpdk`` section as CSIT's
``Add DPDK Cryptodev`` writes them (one per data-plane worker); a DSA as
CSIT's ``DMAUtil.enable_dmas_and_wqs_on_dut`` (its sysfs entry read, the
device disabled, groups, engines and work queues configured, enabled) and
its work queues into a ``dsa`` section (``add_dma_dev``). The node is
CSIT's ``lf_3na_spr_testbed21.yaml`` (a QAT and two DSAs a node) behind a
recording access: no device, no VPP (the real VPP cannot run here). A node
without the device skips the test, the message naming what is missing.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from test_vpp_driver import Clock, RecordingAccess, make

from example_topologies import EXAMPLES, filled
from ndrpdr.activebed.nodes import family_problem
from ndrpdr.dut.accel import DsaDma, FlowOffload, QatCrypto, dsa_info
from ndrpdr.dut.base import DutTestConfig, UnsupportedFamilyError
from ndrpdr.dut.plan import plan_duts
from ndrpdr.families import get_family
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.topology.path import compute_path

ROOT = Path(__file__).resolve().parents[2]
#: The example topologies' file names (loaded filled in: ``example_topologies.filled``).
EXAMPLE_NAMES = frozenset(path.name for path in EXAMPLES)
SPR = ROOT / "tests" / "topology" / "csit" / "lf_3na_spr_testbed21.yaml"
IPSEC = "ethip4ipsec4tnlhwasync-ip4base-int-aes256gcm"
PF = "/sys/bus/pci/devices/0000:76:00.0"
#: What ``grep -H . <dsa>/dsa*/* 2>&1`` prints of a DSA (values, then the directories).
DSA_LISTING = """/sys/bus/pci/devices/0000:75:01.0/dsa0/max_batch_size:1024
/sys/bus/pci/devices/0000:75:01.0/dsa0/max_transfer_size:2147483648
/sys/bus/pci/devices/0000:75:01.0/dsa0/max_work_queues_size:128
/sys/bus/pci/devices/0000:75:01.0/dsa0/state:enabled
grep: /sys/bus/pci/devices/0000:75:01.0/dsa0/engine0.0: Is a directory
grep: /sys/bus/pci/devices/0000:75:01.0/dsa0/engine0.1: Is a directory
grep: /sys/bus/pci/devices/0000:75:01.0/dsa0/group0.0: Is a directory
grep: /sys/bus/pci/devices/0000:75:01.0/dsa0/group0.1: Is a directory
grep: /sys/bus/pci/devices/0000:75:01.0/dsa0/wq0.0: Is a directory
grep: /sys/bus/pci/devices/0000:75:01.0/dsa0/wq0.1: Is a directory
"""


@pytest.fixture(scope="module")
def spr() -> Topology:
    return load_topology(SPR)


class Runner:
    """Records each (step, argv); answers from ``outputs`` by argv's last word, else ""."""

    def __init__(self, outputs: dict[str, str] | None = None) -> None:
        self.argvs: list[list[str]] = []
        self.outputs = outputs or {}

    def __call__(self, step: str, argv: object) -> str:
        assert isinstance(argv, list) and step
        self.argvs.append(argv)
        return self.outputs.get(argv[-1], "")


def _readlinks(count: int) -> dict[str, str]:
    return {
        f"{PF}/virtfn{vf}": f"/sys/devices/pci0000:76/0000:76:00.{vf + 1}\n" for vf in range(count)
    }


def test_a_qat_is_set_up_as_csits_crypto_device_init(spr: Topology) -> None:
    run = Runner(_readlinks(8))
    assert QatCrypto().prepare(spr.duts[0], 2, run) == ()
    assert run.argvs[:4] == [
        ["modprobe", "qat_4xxx"],
        ["adf_ctl", "qat_dev0", "restart"],
        ["adf_ctl", "qat_dev0", "status"],
        ["sh", "-c", 'echo "8" > /sys/bus/pci/drivers/4xxx/0000:76:00.0/sriov_numvfs'],
    ]
    first_vf = run.argvs[4:9]
    assert first_vf == [
        ["readlink", "-f", f"{PF}/virtfn0"],
        ["sh", "-c", f'[ ! -e {PF}/virtfn0/driver ] || echo "0000:76:00.1" > '
                     f"{PF}/virtfn0/driver/unbind"],
        ["sh", "-c", f'echo "vfio-pci" > {PF}/virtfn0/driver_override'],
        ["sh", "-c", 'echo "0000:76:00.1" > /sys/bus/pci/drivers/vfio-pci/bind'],
        ["sh", "-c", f'echo "" > {PF}/virtfn0/driver_override'],
    ]  # fmt: skip
    assert len(run.argvs) == 4 + 8 * 5  # every VF of numvfs


def test_a_qats_vfs_go_to_the_dpdk_section_one_per_worker(spr: Topology) -> None:
    dut1 = spr.duts[0]
    assert QatCrypto().dpdk_lines(dut1, 2) == [
        "  dev 0000:76:00.1 {", "    num-rx-queues 1", "  }",
        "  dev 0000:76:00.2 {", "    num-rx-queues 1", "  }",
    ]  # fmt: skip  # the node's uio_driver is vfio-pci already: no second one
    plain = dataclasses.replace(
        dut1, extra={k: v for k, v in dut1.extra.items() if k != "uio_driver"}
    )
    assert QatCrypto().dpdk_lines(plain, 1)[-1] == "  uio-driver vfio-pci"


def test_the_driver_prepares_the_qat_before_startup_conf_and_only_once(spr: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    for path, target in _readlinks(8).items():
        access.script(["readlink", "-f", path], (0, target, ""))
    driver = make(spr, access, clock)
    config = _config(spr, IPSEC, cores=2)
    driver.configure(config)
    calls = access.calls
    put = next(i for i, call in enumerate(calls) if call[0] == "<put_file>")
    assert calls.index(("modprobe", "qat_4xxx")) < calls.index(("adf_ctl", "qat_dev0", "restart"))
    assert calls.index(("adf_ctl", "qat_dev0", "status")) < put
    text = driver.startup_conf_text
    dpdk = text[text.index("\ndpdk {") : text.index("\n}", text.index("\ndpdk {"))]
    assert "  dev 0000:76:00.1 {\n    num-rx-queues 1\n  }" in dpdk  # inside the one dpdk section
    assert text.count("dpdk {") == 1
    access.calls.clear()
    driver.configure(config)  # the same test again: the QAT stays as it was
    assert ("adf_ctl", "qat_dev0", "restart") not in access.calls


def test_a_dsas_sysfs_entry_is_read_as_csits_get_dma_resource() -> None:
    info = dsa_info(DSA_LISTING, "DUT1")
    assert (info.name, info.engines, info.groups, info.wqs) == (
        "dsa0", ("engine0.0", "engine0.1"), ("group0.0", "group0.1"), ("wq0.0", "wq0.1"),
    )  # fmt: skip
    assert (info.max_batch_size, info.max_work_queues_size) == (1024, 128)
    with pytest.raises(ValueError, match=r"DUT1: the DSA's sysfs entry gives no 'max_batch_size'"):
        dsa_info(DSA_LISTING.replace("max_batch_size", "other"), "DUT1")


def test_dsas_get_a_work_queue_per_worker_as_csits_enable_dma_device(spr: Topology) -> None:
    dsa2 = DSA_LISTING.replace("dsa0", "dsa2").replace("wq0.", "wq2.")
    dsa2 = dsa2.replace("engine0.", "engine2.").replace("group0.", "group2.")
    listing = {
        "/sys/bus/pci/devices/0000:75:01.0/dsa*/* 2>&1": DSA_LISTING,
        "/sys/bus/pci/devices/0000:f2:01.0/dsa*/* 2>&1": dsa2,
        "/sys/bus/dsa/devices/dsa0/state": "enabled\n",
        "/sys/bus/dsa/devices/dsa2/state": "disabled\n",
    }
    run = Runner({f"grep -H . {k}" if "dsa*" in k else k: v for k, v in listing.items()})
    wqs = DsaDma().prepare(spr.duts[0], 2, run)  # 2 workers over the node's 2 bus devices
    assert wqs == ("wq0.0", "wq2.0")
    dsa0 = [argv for argv in run.argvs if any("dsa0" in word for word in argv)]
    assert dsa0 == [
        ["cat", "/sys/bus/dsa/devices/dsa0/state"],
        ["accel-config", "disable-device", "-f", "dsa0"],
        ["accel-config", "config-device", "dsa0"],
        ["accel-config", "config-group", "dsa0/group0.0", "--read-buffers-reserved=0"],
        ["accel-config", "config-engine", "dsa0/engine0.0", "--group-id=0"],
        ["accel-config", "config-wq", "dsa0/wq0.0", "--group-id=0", "--type=user",
         "--priority=10", "--block-on-fault=1", "--wq-size=128", "--mode=dedicated",
         "--name=dsa0_0", "--max-batch-size=1024", "--max-transfer-size=2147483648",
         "--driver=user"],
        ["accel-config", "enable-device", "dsa0"],
        ["accel-config", "enable-wq", "dsa0/wq0.0"],
    ]  # fmt: skip
    assert ["accel-config", "disable-device", "-f", "dsa2"] not in run.argvs  # disabled already
    assert DsaDma().startup_lines(wqs) == ["dsa {", "  dev wq0.0", "  dev wq2.0", "}"]


@pytest.mark.parametrize(
    ("family", "topology", "missing"),
    [
        (IPSEC, "tests/topology/csit/lf_3n_icx_testbed37.yaml",
         "DUT1 (vpp): ethip4ipsec4tnlhwasync-ip4base-int-aes256gcm needs a QAT crypto device: "
         "DUT1 has no QAT crypto device (nodes.DUT1.cryptodev lists none; CSIT's field: "
         "cryptodev: {device1: {pci_address, driver, model, module: qat_4xxx, numvfs, qat_dev}})"),
        ("ethip4udpwireguard1tnlhwasync-ip4base", "topologies/local-vpp-3n.yaml",
         "DUT1 (vpp): ethip4udpwireguard1tnlhwasync-ip4base needs a QAT crypto device: DUT1 "
         "has no QAT crypto device (nodes.DUT1.cryptodev lists none;"),
        ("ethip4ipsec1tnlhwasync-ip4base-int-aes256gcm-udir",
         "tests/topology/csit/lf_2n_zn2_testbed210.yaml",
         "DUT1 (vpp): ethip4ipsec1tnlhwasync-ip4base-int-aes256gcm-udir needs a QAT crypto "
         "device: DUT1 has no QAT crypto device (nodes.DUT1.cryptodev lists none;"),
        ("ethip4gtpuhw-ip4base", "tests/topology/csit/lf_3na_spr_testbed21.yaml",
         "DUT1 (vpp): ethip4gtpuhw-ip4base needs a NIC with GTP-U flow offload: DUT1's port1 is "
         "a Mellanox-CX7VEAT (interfaces.port1.model): GTP-U flow offload runs on Intel-X710, "
         "Intel-XL710, Intel-XXV710, Intel-E810"),
        ("ethip4gtpuhw-ip4base", "topologies/local-vpp-3n.yaml",
         "DUT1 (vpp): ethip4gtpuhw-ip4base needs a NIC with GTP-U flow offload: DUT1's VPP "
         "drives its ports as af_packet (options.port_kind): GTP-U flow offload goes to VPP's "
         "DPDK plugin with the NICs (port_kind: dpdk, a lab node)"),
        ("eth-l2bdbasemaclrn-eth-2memif-dma-1dcr", "topologies/csit-2n-example.yaml",
         "DUT1 (vpp): eth-l2bdbasemaclrn-eth-2memif-dma-1dcr needs a DSA DMA device: DUT1 has "
         "no DSA DMA device (nodes.DUT1.bus lists none; CSIT's field: bus: {device1: "
         "{pci_address, driver: idxd, model: Intel-DSA}})"),
    ],
)  # fmt: skip
def test_a_node_without_the_device_skips_naming_it(
    family: str, topology: str, missing: str
) -> None:
    # An example topology is loaded filled in (its copy's path differs by process: not an id).
    example = topology.removeprefix("topologies/")
    loaded = load_topology(filled(example) if example in EXAMPLE_NAMES else ROOT / topology)
    problem = family_problem(loaded, compute_path(loaded), get_family(family))
    assert problem is not None and problem.startswith(missing), problem


def test_the_sim_and_a_node_with_the_device_run_them(spr: Topology) -> None:
    sim = load_topology(ROOT / "topologies" / "sim-3n.yaml")
    for family in (IPSEC, "ethip4gtpuhw-ip4base", "ethip4udpwireguard1000tnlhwasync-ip4base"):
        assert family_problem(sim, compute_path(sim), get_family(family)) is None
    assert family_problem(spr, compute_path(spr), get_family(IPSEC)) is None
    assert FlowOffload().missing(spr.duts[0], ()) is None  # no port of a Mellanox on the path


def test_the_driver_skips_too_before_writing_anything() -> None:
    """The driver checks as well (a caller that skips ``family_problem``)."""
    csit = load_topology(filled("csit-2n-example.yaml"))
    access, clock = RecordingAccess(), Clock()
    driver = make(csit, access, clock)
    family = get_family("eth-l2bdbasemaclrn-eth-2memif-dma-1dcr")
    config = plan_duts(csit, compute_path(csit), "l2xc", family=family.setup)["DUT1"]
    with pytest.raises(UnsupportedFamilyError, match=r"needs a DSA DMA device: DUT1 has no DSA"):
        driver.configure(config)
    assert not [call for call in access.calls if call[0] == "<put_file>"]


def _config(topology: Topology, family: str, *, cores: int = 1) -> DutTestConfig:
    return plan_duts(
        topology, compute_path(topology), "ip4base", cores=cores,
        family=get_family(family).setup,
    )["DUT1"]  # fmt: skip
