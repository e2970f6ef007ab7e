"""What a driver says about itself, once: name, role, options, factory, where it runs.

A ``DriverDescription`` is the one place a TG or DUT driver is described.
The topology loader reads its options and access kinds, the JSON Schema
and the docs come from its options dataclass, and ``ActiveTestbed`` makes
the driver (and a TG's testbed-wide session) through its factories;
the families ask it which of their set-ups a DUT driver takes, the
records how to learn the version of what it runs. Nothing else branches
on driver names: a new driver is its module and its ``DESCRIPTION``.

Access kinds and the testbed kinds they make:

* ``local``: in this process or on this machine without a namespace
  (the simulator; a lab host that is this machine);
* ``netns``: a network namespace of this machine made for the run (the
  local testbed);
* ``ssh``: a lab host over SSH;
* ``labbox``: a namespace of this machine made to act as a lab host, with
  its own sshd, driven over SSH exactly as a lab host (the lab in a box).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal

from ndrpdr.topology.model import NodeType

AccessKind = Literal["local", "netns", "ssh", "labbox"]
ACCESS_KINDS: tuple[AccessKind, ...] = ("local", "netns", "ssh", "labbox")

#: The testbed kind each access kind stands for, in the docs.
KIND_NAMES: dict[AccessKind, str] = {
    "local": "this machine",
    "netns": "local testbed",
    "ssh": "lab",
    "labbox": "lab in a box",
}

#: Which of a test family's set-ups (``ndrpdr.dut.base.FamilySetup``) a DUT driver takes:
#: ``every``: a basic forwarding mode for every family that gives no reason against it, the
#: mode the family names for it or else its traffic's own (the sim: its cost model stands
#: for any set-up); ``vpp``: the family's VPP set-up; ``mode``: the basic mode a family
#: names for it (linux, testpmd...), so it runs only those families.
FamilySetupKind = Literal["every", "vpp", "mode"]
#: The kinds, in the order ``ndrpdr families`` lists a family's drivers.
FAMILY_SETUP_KINDS: tuple[FamilySetupKind, ...] = ("every", "vpp", "mode")


@dataclasses.dataclass(frozen=True)
class Software:
    """The versioned software a driver runs on its node, as ``ndrpdr check`` checks it.

    ``name`` ("VPP", "TRex"); ``supported``: the releases the driver is
    written and checked against ("v26.06"; a build of the same release,
    "v26.06-release", "v26.06.1", matches); ``installed(node, access)``
    reads the version installed on the node, whether it runs or not, as
    ``(version, where)`` ("v26.06-release", "/usr/bin/vpp"), and raises an
    NdrPdrError (or OSError) saying what is missing; ``option`` is the node
    option that says where the software is ("binary", "install_dir").
    """

    name: str
    supported: tuple[str, ...]
    installed: Callable[[Any, Any], tuple[str, str]]
    option: str


@dataclasses.dataclass(frozen=True)
class DriverDescription:
    """One TG or DUT driver.

    ``options`` is the options dataclass (see ``ndrpdr.drivers.options``);
    ``factory`` makes the driver: a DUT driver from ``(node, access)``, a TG
    driver from a ``TrafficContext``. ``access`` lists the access kinds the
    driver runs with; ``default_access`` is the access a node gets when its
    file gives none (None: the file must say). ``duts`` lists the numbers of
    DUTs in the chains it runs in (1: 2-node, 2: 3-node). ``peers`` names the
    drivers of the other role it works with (None: any). ``session`` (TG
    only) makes the testbed-wide part that lives from set-up to teardown and
    is shared by every test (a TRex server and its connection), or None.
    ``port_driver`` says how a DUT node's data plane reaches its ports
    (``vfio-pci``, ``af_packet``, ``kernel``...), for CSIT's ``DRV_*`` tags.
    ``software`` is what ``ndrpdr check`` compares with the node's (None: a
    driver whose software has no version to check: the simulator, Linux).
    ``threads`` (DUT only) gives, from ``(node, DutTestConfig)``, which CPU
    each data-plane thread of the test gets, as the driver places them
    (``ndrpdr.dut.smt.ThreadPlan``: CSIT's ``2T1C`` tags, the record's
    ``threads``); None: the driver has no workers (one thread per core).
    """

    name: str
    role: NodeType
    summary: str
    options: type[Any]
    factory: Callable[..., Any]
    access: tuple[AccessKind, ...]
    default_access: AccessKind | None = None
    duts: tuple[int, ...] = (1, 2)
    peers: tuple[str, ...] | None = None
    session: Callable[..., Any] | None = None
    port_driver: Callable[[Any], str] | None = None
    threads: Callable[[Any, Any], Any] | None = None
    version: Callable[[Any, Any], str | None] | None = None
    software: Software | None = None
    family_setup: FamilySetupKind = "mode"

    def __post_init__(self) -> None:
        """Check the description itself (a programming error, not a user's)."""
        if not self.access or any(kind not in ACCESS_KINDS for kind in self.access):
            raise ValueError(f"driver {self.name}: access {self.access!r} is not valid")
        if self.default_access is not None and self.default_access not in self.access:
            raise ValueError(f"driver {self.name}: default_access is not one of its access kinds")
        if self.role == "DUT" and self.session is not None:
            raise ValueError(f"driver {self.name}: only a TG driver has a session")
        if self.family_setup not in FAMILY_SETUP_KINDS:
            raise ValueError(f"driver {self.name}: family_setup {self.family_setup!r} is not valid")

    @property
    def kinds_text(self) -> str:
        """The testbed kinds it runs on, in words ("local testbed, lab")."""
        return ", ".join(KIND_NAMES[kind] for kind in self.access)
