"""A DUT's devices besides its ports (CSIT's ``cryptodev`` and ``bus`` fields): typed, checked.

CSIT's lab files load unchanged and their QATs and DSAs come out typed
(``lf_3na_spr_testbed21.yaml``, kept in ``tests/topology/csit``; a file
whose QAT has no ``qat_dev`` read from CSIT's git directory at test time,
skipped without it); a wrong field fails the load naming file, line, node
and field (the first node of that file, its TG, lists them too); a node
built in memory is checked when read.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from csit_schema_source import csit_git_or_skip, git_show
from ndrpdr.topology.devices import BusDevice, CryptoDevice, bus_devices, crypto_devices
from ndrpdr.topology.errors import TopologyError
from ndrpdr.topology.loader import load_topology

CSIT = Path(__file__).parent / "csit"
SPR = CSIT / "lf_3na_spr_testbed21.yaml"


def test_csit_qats_and_dsas_come_out_typed() -> None:
    topology = load_topology(SPR)
    dut1, dut2 = topology.duts
    assert crypto_devices(dut1) == (
        CryptoDevice("device1", "0000:76:00.0", "4xxx", "HW_4xxx", "qat_4xxx", 8, "qat_dev0"),
    )
    assert crypto_devices(dut2)[0].pci_address == "0000:f3:00.0"
    assert crypto_devices(dut2)[0].qat_dev == "qat_dev1"
    assert bus_devices(dut1) == (
        BusDevice("device1", "0000:75:01.0", "idxd", "Intel-DSA"),
        BusDevice("device2", "0000:f2:01.0", "idxd", "Intel-DSA"),
    )
    assert all(d.is_dsa for d in bus_devices(dut2)) and crypto_devices(dut1)[0].is_qat
    assert crypto_devices(topology.tg) == crypto_devices(dut1)  # CSIT lists them on its TG too
    icx = load_topology(CSIT / "lf_3n_icx_testbed37.yaml").duts[0]
    assert crypto_devices(icx) == () and bus_devices(icx) == ()


def test_virtual_function_addresses_follow_csits_numbering() -> None:
    qat = crypto_devices(load_topology(SPR).duts[0])[0]
    assert [qat.vf_address(n) for n in (1, 2, 7, 8, 9)] == [
        "0000:76:00.1", "0000:76:00.2", "0000:76:00.7", "0000:76:01.0", "0000:76:01.1",
    ]  # fmt: skip


def test_a_csit_qat_without_its_adf_ctl_name_loads(tmp_path: Path) -> None:
    git_dir = csit_git_or_skip()
    path = tmp_path / "lf_2n_spr_testbed23.yaml"
    path.write_text(git_show(git_dir, "topologies/available/lf_2n_spr_testbed23.yaml"))
    qat = crypto_devices(load_topology(path).duts[0])[0]
    assert (qat.qat_dev, qat.numvfs, qat.module) == (None, 8, "qat_4xxx")


@pytest.mark.parametrize(
    ("old", "new", "field", "problem"),
    [
        ("numvfs: 8", "numvfs: eight", "nodes.TG.cryptodev.device1.numvfs", "integer"),
        ('pci_address: "0000:76:00.0"', 'pci_address: "76:00.0"',
         "nodes.TG.cryptodev.device1.pci_address", "is not a PCI address"),
        ("model: Intel-DSA", "modell: Intel-DSA", "nodes.TG.bus.device1", "model"),
    ],
)  # fmt: skip
def test_a_wrong_device_field_names_file_line_node_and_field(
    tmp_path: Path, old: str, new: str, field: str, problem: str
) -> None:
    path = tmp_path / "lab.yaml"
    path.write_text(SPR.read_text().replace(old, new, 1))
    with pytest.raises(TopologyError) as raised:
        load_topology(path)
    assert raised.value.field == field
    assert raised.value.line is not None and str(raised.value).startswith(f"{path}:")
    assert problem in raised.value.problem, raised.value.problem


def test_a_node_built_in_memory_is_checked_when_read() -> None:
    dut1 = load_topology(SPR).duts[0]
    entry = {"pci_address": "0000:76:00.0", "driver": "4xxx", "model": "HW_4xxx"}
    node = dataclasses.replace(dut1, extra={"cryptodev": {"device1": {**entry, "numvfs": -1}}})
    with pytest.raises(ValueError, match=r"nodes\.DUT1\.cryptodev\.device1\.numvfs: -1"):
        crypto_devices(node)
    node = dataclasses.replace(dut1, extra={"bus": {"device1": {**entry, "pci_address": "x"}}})
    with pytest.raises(ValueError, match=r"nodes\.DUT1\.bus\.device1\.pci_address: 'x'"):
        bus_devices(node)
