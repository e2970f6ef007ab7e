"""A family's VPP set-up: the base every set-up derives from, each optional member's default.

The vpp driver reads a family's set-up through ``ndrpdr.dut.base.VppSetup``:
the plugins it needs, the lines that set it up and undo it, and what else
it asks of the driver. ``VppSetupBase`` declares each of those optional
members once, with the value a set-up that does not mention it gets, so a
set-up overrides only what it changes (a dataclass field or a property of
the same name), and every member the driver reads is typed:

- ``settle_s``: seconds VPP sends frames of its own after the set-up, which
  the driver waits out before traffic (IPv6: one MLDv2 report per port);
- ``startup``: startup.conf sections to append (``large_tables_startup``);
- ``heap_size_mult``: FD.io CSIT's multiple of its 3 GiB main heap for the
  family's suites;
- ``fresh``: the set-up leaves state that deleting the test's ports does not
  remove (``FreshVpp``), so the next test gets a fresh VPP;
- ``rx_workers``: only the first N workers read the ports (None: all);
- ``peer_commands``: a second VPP runs beside the DUT's with these commands;
- ``state_check``: how VPP counts a stateful family's state;
- ``trial_reset``: what VPP runs before each trial to clear a stateful
  family's state (CSIT's ``${resetter}`` of its cps suites);
- ``guest``: a guest joined to VPP over vhost-user runs beside it (CSIT's
  vnf: "testpmd_io", "vppl2xc", "vppip4noarp"), ``guest_commands`` a
  guest VPP's lines.
- ``hardware``: a device the node needs besides its ports
  (``ndrpdr.dut.accel``: QAT crypto, DSA DMA, NIC flow offload).

``family`` is the id of the family the set-up belongs to: ``Family`` passes
it down (``for_family``) so a family module writes the id once; a set-up
checks its values (``check``) then, naming the family.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TypeVar

from ndrpdr.dut.accel import HardwareNeed
from ndrpdr.dut.base import DutTestConfig, StateCheck, TrialReset

#: Renders the vppctl lines of a family for one DUT, given VPP's names of its two ports.
Render = Callable[[DutTestConfig, tuple[str, str]], list[str]]

_Setup = TypeVar("_Setup", bound="VppSetupBase")


@dataclasses.dataclass(frozen=True)
class VppSetupBase:
    """The defaults of a VPP set-up's optional members (the module docstring says each)."""

    family: str = dataclasses.field(default="", kw_only=True)

    def __post_init__(self) -> None:
        """Check the set-up's values once it belongs to a family (``check``)."""
        if self.family:
            self.check()

    def check(self) -> None:
        """FamilyDefinitionError naming ``family`` for a value it cannot take (none here)."""

    def for_family(self: _Setup, family: str) -> _Setup:
        """This set-up as family ``family``'s (checked)."""
        return dataclasses.replace(self, family=family)

    @property
    def settle_s(self) -> float:
        """No frames of VPP's own to wait out [s]."""
        return 0.0

    @property
    def startup(self) -> str:
        """No startup.conf sections of the family's own."""
        return ""

    @property
    def heap_size_mult(self) -> int:
        """CSIT's main heap as it is."""
        return 1

    @property
    def fresh(self) -> bool:
        """The VPP of the run serves the next test too (``undo_commands`` cleans up)."""
        return False

    @property
    def rx_workers(self) -> int | None:
        """Every worker reads the ports."""
        return None

    @property
    def peer_commands(self) -> tuple[str, ...]:
        """No second VPP."""
        return ()

    @property
    def state_check(self) -> StateCheck | None:
        """No state to count."""
        return None

    @property
    def trial_reset(self) -> TrialReset | None:
        """No state to reset before a trial."""
        return None

    @property
    def guest(self) -> str | None:
        """No guest over vhost-user."""
        return None

    def guest_commands(self, config: DutTestConfig) -> list[str]:
        """No guest VPP lines."""
        return []

    @property
    def hardware(self) -> HardwareNeed | None:
        """No device besides the ports."""
        return None


@dataclasses.dataclass(frozen=True)
class FreshVpp(VppSetupBase):
    """A VPP set-up whose state only a restart of VPP removes (its ``fresh`` is True).

    The driver starts the next test on a fresh VPP, so nothing needs undoing
    before the ports go.
    """

    @property
    def fresh(self) -> bool:
        """The next test's VPP is a new process."""
        return True

    def undo_commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """No lines: the next test's VPP is a new process."""
        return []


@dataclasses.dataclass(frozen=True)
class VppCommands(VppSetupBase):
    """A family's VPP set-up: the plugins it needs and the functions that render its commands.

    ``render`` gives the lines that set the family up on one DUT; ``undo``
    (optional) the lines that remove what would outlive the test's
    interfaces in a VPP that serves the next test too (ACLs, classify
    tables, host routes), run while the interfaces still exist;
    ``settle_s``, ``startup`` and ``heap_size_mult`` as ``VppSetupBase``'s.
    """

    plugins: tuple[str, ...]
    render: Render
    undo: Render | None = None
    settle_s: float = 0.0
    startup: str = ""
    heap_size_mult: int = 1

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for the DUT ``config`` describes."""
        return self.render(config, names)

    def undo_commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines that remove this DUT's set-up before its interfaces go."""
        return [] if self.undo is None else self.undo(config, names)
