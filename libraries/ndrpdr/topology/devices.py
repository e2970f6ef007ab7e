"""A DUT node's devices besides its ports, as FD.io CSIT's topology files list them.

CSIT's lab files describe two kinds on a DUT node, which its hardware
suites use (``topologies/available/lf_3n_emr_testbed28.yaml``):

- ``cryptodev``: crypto accelerators by key (``device1``...): a QAT's
  ``pci_address`` (its physical function), ``driver`` (the kernel driver
  of the PF, ``4xxx``), ``model`` (``HW_4xxx``), ``module`` (the kernel
  module, ``qat_4xxx``), ``numvfs`` (virtual functions to create) and, on
  most files, ``qat_dev`` (the name ``adf_ctl`` knows it by, ``qat_dev0``);
  CSIT's QATUtil and its ``Add DPDK Cryptodev`` read these;
- ``bus``: other PCI devices by key, of which CSIT's DMAUtil takes those
  whose ``model`` names ``Intel-DSA`` (``pci_address``, ``driver: idxd``).

The loader keeps both in ``Node.extra`` as the file has them (the schema
checks their shape: ``schemas/topology.base.schema.json``); these functions
give them typed. A node built in memory is checked here too: ValueError
naming the node and the field (``nodes.DUT1.cryptodev.device1.numvfs``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from ndrpdr.topology.model import Node

#: CSIT's node field of crypto devices, and of other PCI devices (DSA among them).
CRYPTODEV_FIELD = "cryptodev"
BUS_FIELD = "bus"
#: The ``model`` text of an Intel DSA in a ``bus`` entry (CSIT's DMAUtil's test).
DSA_MODEL = "Intel-DSA"
_PCI = re.compile(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]")


@dataclasses.dataclass(frozen=True)
class CryptoDevice:
    """One ``cryptodev`` entry (the module docstring); ``qat_dev`` None when not given."""

    key: str
    pci_address: str
    driver: str
    model: str
    module: str
    numvfs: int
    qat_dev: str | None = None

    @property
    def is_qat(self) -> bool:
        """True for an Intel QAT (its module ``qat_*``; Marvell's CPT is ``rvu_cptpf``)."""
        return self.module.startswith("qat")

    def vf_address(self, number: int) -> str:
        """The PCI address of virtual function ``number`` (1 on) as CSIT's ``Add DPDK
        Cryptodev`` computes it: the PF's last ``<device>.<function>`` digits replaced by
        ``number // numvfs`` and ``number % numvfs`` (``0000:76:00.0``, 1 -> ``0000:76:00.1``)."""
        per = max(1, self.numvfs)
        return self.pci_address[:-3] + f"{number // per}.{number % per}"


@dataclasses.dataclass(frozen=True)
class BusDevice:
    """One ``bus`` entry: a PCI device by ``pci_address``, its kernel ``driver`` and ``model``."""

    key: str
    pci_address: str
    driver: str
    model: str

    @property
    def is_dsa(self) -> bool:
        """True for an Intel Data Streaming Accelerator (CSIT: ``Intel-DSA`` in the model)."""
        return DSA_MODEL in self.model


def _where(node: Node, *fields: str) -> str:
    return ".".join(("nodes", node.key, *fields))


def _entries(node: Node, field: str) -> Mapping[str, Mapping[str, Any]]:
    value = node.extra.get(field)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(
            f"{_where(node, field)}: a mapping of devices (device1: ...), not {value!r}"
        )
    for key, entry in value.items():
        if not isinstance(entry, Mapping):
            raise ValueError(f"{_where(node, field, str(key))}: a mapping of the device's fields")
    return value


def _text(node: Node, field: str, key: str, entry: Mapping[str, Any], name: str) -> str:
    value = entry.get(name)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{_where(node, field, key, name)}: missing or not a text ({value!r})")
    if name == "pci_address" and not _PCI.fullmatch(value):
        raise ValueError(
            f"{_where(node, field, key, name)}: {value!r} is not a PCI address like '0000:76:00.0'"
        )
    return value


def crypto_devices(node: Node) -> tuple[CryptoDevice, ...]:
    """The node's ``cryptodev`` entries in file order (none: an empty tuple)."""
    out = []
    for key, entry in _entries(node, CRYPTODEV_FIELD).items():
        numvfs = entry.get("numvfs")
        if isinstance(numvfs, bool) or not isinstance(numvfs, int) or numvfs < 0:
            raise ValueError(
                f"{_where(node, CRYPTODEV_FIELD, key, 'numvfs')}: {numvfs!r} is not a count "
                "of virtual functions (0 or more)"
            )
        qat_dev = entry.get("qat_dev")
        out.append(
            CryptoDevice(
                key=key,
                pci_address=_text(node, CRYPTODEV_FIELD, key, entry, "pci_address"),
                driver=_text(node, CRYPTODEV_FIELD, key, entry, "driver"),
                model=_text(node, CRYPTODEV_FIELD, key, entry, "model"),
                module=_text(node, CRYPTODEV_FIELD, key, entry, "module"),
                numvfs=numvfs,
                qat_dev=None if qat_dev is None else str(qat_dev),
            )
        )
    return tuple(out)


def bus_devices(node: Node) -> tuple[BusDevice, ...]:
    """The node's ``bus`` entries in file order (none: an empty tuple)."""
    return tuple(
        BusDevice(
            key=key,
            pci_address=_text(node, BUS_FIELD, key, entry, "pci_address"),
            driver=_text(node, BUS_FIELD, key, entry, "driver"),
            model=_text(node, BUS_FIELD, key, entry, "model"),
        )
        for key, entry in _entries(node, BUS_FIELD).items()
    )
