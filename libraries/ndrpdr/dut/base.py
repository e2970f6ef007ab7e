"""The contract every DUT driver keeps, and what a test asks of the DUT.

A DUT driver turns a node of the topology into a forwarding data plane:
``configure`` records (and, for an already running plane, applies) the
test's forwarding set-up, ``start`` brings the data plane up, ``health_check``
says whether it still forwards, ``stop`` brings it down, and ``telemetry``
returns what an engineer wants to read after the test (counters, the
process log). Drivers raise DutError with the node and what failed. A
driver subclasses ``DutDriver`` for the defaults of what not every driver
has: ``close()`` (a data plane that lives for the whole run, VPP of the
run started once per suite, ends there: the testbed's teardown calls it
after the last ``stop``), ``health_interval_s`` and ``run_cli``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Literal, Protocol

from ndrpdr.drivers import FamilySetupKind, driver_names, find
from ndrpdr.errors import NdrPdrError

if TYPE_CHECKING:  # ndrpdr.dut.smt imports this module (through ndrpdr.dut.cores)
    from ndrpdr.dut.accel import HardwareNeed
    from ndrpdr.dut.smt import NodeCpus

#: How the DUT forwards: IPv4 routing (ip4base), or L2 cross-connect (port1 <-> port2).
ForwardingMode = Literal["ip4base", "l2xc"]
#: The key of ``FamilySetup.reasons`` that stands for every driver the family has no set-up
#: for and names no reason of its own for; ``{driver}`` in its text is the driver's name.
OTHER_DRIVERS = "*"


class DutError(NdrPdrError):
    """A DUT could not be configured, started, checked or stopped (names the node)."""


@dataclasses.dataclass(frozen=True)
class DutPort:
    """One DUT port as a test uses it.

    ``name``: OS interface name (or None on a lab NIC known only by PCI
    address); ``mac``: the port's own MAC; ``peer_mac``: MAC of the
    interface at the other end of its link (frames leaving this port are
    addressed to it); ``ip4_address``: this port's address with prefix
    length ("192.168.10.1/24"); ``peer_ip4``: the next hop on the link
    ("192.168.10.2"); ``routed_prefix``: traffic to this prefix leaves the
    DUT through this port ("198.18.1.0/24"); ``ip6_address``, ``peer_ip6``
    and ``routed_prefix6`` the same for IPv6 ("2001:db8:10::1/64",
    "2001:db8:10::2", "2001:2:0:1::/64"); ``memif_socket``: a memif port's socket
    file (None: not a memif port).
    """

    key: str
    name: str | None
    mac: str | None
    pci_address: str | None
    peer_mac: str
    ip4_address: str
    peer_ip4: str
    routed_prefix: str
    ip6_address: str | None = None
    peer_ip6: str | None = None
    routed_prefix6: str | None = None
    memif_socket: str | None = None


@dataclasses.dataclass(frozen=True)
class StateCheck:
    """How a DUT driver counts a family's state: ``command``'s output read by ``parse``.

    ``what`` names the state ("DET44 sessions"); ``parse`` returns the
    count, or raises ValueError when the output is not as expected (the
    message quotes it).
    """

    what: str
    command: str
    parse: Callable[[str], int]


@dataclasses.dataclass(frozen=True)
class TrialReset:
    """How a DUT driver resets a family's state before each trial (CSIT's ``${resetter}``).

    ``commands`` run in order on the DUT's CLI; then, with ``until_empty``,
    its count is read every ``poll_s`` until it is zero (a DutError after
    ``timeout_s``), as CSIT waits for SFDP's session table to empty.
    ``what`` names it in logs and errors ("NAT44-ED sessions cleared").
    """

    what: str
    commands: tuple[str, ...]
    until_empty: StateCheck | None = None
    poll_s: float = 0.1
    timeout_s: float = 10.0


class VppSetup(Protocol):
    """What a test family configures on a VPP DUT (made by ``ndrpdr.families``).

    ``plugins``: the VPP plugins it needs besides the port kind's (a missing
    one fails the test naming it). ``commands`` lists the vppctl commands,
    one per line, that set the family's forwarding up on one DUT of the
    chain, given VPP's names of its two ports; ``undo_commands`` those that
    remove, before the ports go, what a VPP kept for the next test would
    otherwise keep. The other members say what else the family asks of the
    vpp driver (``ndrpdr.dut.vpp.family`` reads them); a family's set-up
    gets each one's default from ``ndrpdr.families.vppsetup.VppSetupBase``.
    """

    @property
    def plugins(self) -> tuple[str, ...]:
        """Plugin names ("acl", "memif") the family needs."""
        ...

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The CLI lines for this DUT (``config.position`` of ``config.chain`` DUTs)."""
        ...

    def undo_commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The CLI lines that remove what outlives the test's interfaces (ACLs, tables, routes)."""
        ...

    @property
    def settle_s(self) -> float:
        """Seconds VPP sends frames of its own after the set-up (IPv6's MLD reports) [s]."""
        ...

    @property
    def startup(self) -> str:
        """startup.conf sections to append ("" for none; the IPsec SPD flow caches)."""
        ...

    @property
    def heap_size_mult(self) -> int:
        """FD.io CSIT's multiple of its 3 GiB main heap for the family's suites (1: as it is)."""
        ...

    @property
    def fresh(self) -> bool:
        """The set-up leaves state deleting the ports does not remove: restart VPP for the next."""
        ...

    @property
    def rx_workers(self) -> int | None:
        """Only the first N workers read the ports (None: all of them)."""
        ...

    @property
    def peer_commands(self) -> tuple[str, ...]:
        """A second VPP's commands (empty: none); ``{socket}`` is the DUT's memif socket."""
        ...

    @property
    def state_check(self) -> StateCheck | None:
        """How the DUT counts a stateful family's state (None: it keeps none to count)."""
        ...

    @property
    def trial_reset(self) -> TrialReset | None:
        """What resets the family's state before each trial (None: nothing, the default)."""
        ...

    @property
    def guest(self) -> str | None:
        """The guest over vhost-user, CSIT's vnf ("testpmd_io", "vppl2xc"; None: none)."""
        ...

    def guest_commands(self, config: DutTestConfig) -> list[str]:
        """A guest VPP's CLI lines (none for testpmd or without a guest)."""
        ...

    @property
    def hardware(self) -> HardwareNeed | None:
        """A device the family needs on the node besides its ports (``ndrpdr.dut.accel``:
        QAT crypto, DSA DMA, NIC flow offload; None: none)."""
        ...


def family_setup_of(driver: str) -> FamilySetupKind:
    """Which of a family's set-ups the DUT driver ``driver`` takes, as its description says
    (``ndrpdr.drivers.FamilySetupKind``); ``mode`` for a driver nobody described."""
    description = find("DUT", driver)
    return "mode" if description is None else description.family_setup


@dataclasses.dataclass(frozen=True)
class FamilySetup:
    """What one test family asks of each kind of DUT driver (made by ``ndrpdr.families``).

    Which part a driver takes its description says (``family_setup_of``):
    ``modes``: the basic mode of each driver that runs the family in one
    (linux, testpmd, l3fwd, ovs), by driver name; a driver that runs every
    family (the sim) is named only for a mode other than its traffic's
    own. ``vpp``: its VPP set-up (None: no driver taking it runs the
    family). ``reasons``: why a driver cannot run it, by driver name, and
    for the others under ``OTHER_DRIVERS`` (``why_not`` words the rest); a
    driver that runs every family runs it unless named here.
    ``family``: the family's id (its ``Family`` gives it).
    """

    family: str = dataclasses.field(default="", kw_only=True)
    modes: Mapping[str, ForwardingMode]
    vpp: VppSetup | None = None
    reasons: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def runs_on(self, driver: str) -> bool:
        """True when ``driver`` has a set-up for this family."""
        kind = family_setup_of(driver)
        if kind == "vpp":
            return self.vpp is not None
        return driver in self.modes or (kind == "every" and driver not in self.reasons)

    def vpp_for(self, driver: str) -> VppSetup | None:
        """The VPP set-up ``driver`` configures for this family: None unless it takes VPP's
        set-up (its description's ``family_setup``) and the family has one."""
        return self.vpp if family_setup_of(driver) == "vpp" else None

    def mode(self, driver: str, own: ForwardingMode) -> ForwardingMode:
        """The basic mode ``driver`` runs this family in: the one named for it, else ``own``
        (the mode of the family's traffic: l2xc for L2 frames, else ip4base)."""
        return self.modes.get(driver, own)

    def why_not(self, driver: str) -> str:
        """Why ``driver`` cannot run this family, in words a skip message can carry."""
        if driver in self.reasons:
            return self.reasons[driver]
        if OTHER_DRIVERS in self.reasons:
            return self.reasons[OTHER_DRIVERS].replace("{driver}", driver)
        runs = sorted(name for name in {*self.modes, *driver_names("DUT")} if self.runs_on(name))
        return (
            f"the {driver} driver has no set-up for {self.family} "
            f"(it runs on: {', '.join(runs) or 'none'})"
        )


class UnsupportedFamilyError(DutError):
    """A DUT driver on the path has no set-up for the test's family: the test is skipped."""


@dataclasses.dataclass(frozen=True)
class DutTestConfig:
    """What one test asks of a DUT.

    ``ports`` are the two ports traffic crosses: direction 0 enters
    ``ports[0]`` and leaves ``ports[1]``, direction 1 the reverse.
    ``cores``: physical cores of the data plane's workers; ``cpus``: the
    node's CPUs and its ports' NUMA node (None: not known, each CPU is a
    core of its own); ``smt``: a core gives every hardware thread it has as
    a worker (``ndrpdr.dut.smt``; false: its first only);
    ``max_frame_size_b``: the largest frame of the test incl. FCS [B]
    (for MTU / jumbo settings).
    ``family``: the test family's set-ups (None: ``mode`` alone says what to
    do); ``position``: this DUT's index on the path (0: next to TG port A)
    of ``chain`` DUTs, for families that configure DUT1 and DUT2 apart.
    """

    mode: ForwardingMode
    ports: tuple[DutPort, DutPort]
    cores: int = 1
    max_frame_size_b: int = 1518
    family: FamilySetup | None = None
    position: int = 0
    chain: int = 1
    cpus: NodeCpus | None = None
    smt: bool = True


class DutDriver(Protocol):
    """configure -> start -> health_check ... -> stop; telemetry any time after start.

    A driver subclasses this class for the defaults of ``health_interval_s``,
    ``close`` and ``run_cli``.
    """

    #: Shortest pause the driver asks for between two health checks [s] (default 0: none;
    #: a check that runs several commands asks for more, ``ndrpdr.dut.health``).
    health_interval_s: float = 0.0

    @property
    def node(self) -> str:
        """The node key ("DUT1")."""
        ...

    def configure(self, config: DutTestConfig) -> None:
        """Set the forwarding for a test (applied now if running, else at start)."""
        ...

    def start(self) -> None:
        """Bring the data plane up with the last configuration (DutError if it fails)."""
        ...

    def health_check(self) -> None:
        """Raise DutError unless the data plane is up (process alive, config in place)."""
        ...

    def stop(self) -> None:
        """Bring the data plane down and undo what start did (idempotent)."""
        ...

    def telemetry(self) -> dict[str, str]:
        """Named texts for the result: counters, state, the process log."""
        ...

    def close(self) -> None:
        """End what lives for the whole run, after the last ``stop`` (default: nothing)."""
        return None  # a body, so the default is no abstract method to mypy

    def run_cli(self, command: str) -> str | None:
        """The output of one command of the data plane's own CLI (VPP's ``vppctl``), e.g. to
        count a stateful family's sessions; None (the default): the driver has no CLI."""
        return None
