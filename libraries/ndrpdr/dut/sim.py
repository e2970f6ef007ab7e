"""The sim DUT: nothing to drive, the simulated DUT lives inside the sim TG's loss model.

configure / start / stop only record state, so a sim topology runs through
the same steps as a real one; telemetry says that the DUT is simulated, the
family and cores it was configured for, and the capacity the sim TG
modelled for it (``note_modelled``: the sim TG builds the model from the
traffic's family cost and frame size, which only it knows).
"""

from __future__ import annotations

from ndrpdr.access.base import NodeAccess
from ndrpdr.drivers import DriverDescription
from ndrpdr.dut.base import DutDriver, DutError, DutTestConfig
from ndrpdr.simdut.modelled import ModelledDut, SimDutOptions, modelled
from ndrpdr.simdut.version import simulator_version
from ndrpdr.topology.model import Node


class SimDutDriver(DutDriver):
    """A no-op DUT driver that remembers what it was asked to do."""

    def __init__(self, node: Node, access: NodeAccess | None = None) -> None:
        """Keep the node; ``access`` is not used (no I/O ever)."""
        self._node = node
        self.config: DutTestConfig | None = None
        self.running = False
        self.starts = 0

    @property
    def node(self) -> str:
        """The node key."""
        return self._node.key

    def configure(self, config: DutTestConfig) -> None:
        """Remember ``config``."""
        self.config = config

    def start(self) -> None:
        """Mark as running (DutError if not configured)."""
        if self.config is None:
            raise DutError(f"{self.node} (sim): start: configure() was not called")
        self.running = True
        self.starts += 1

    def health_check(self) -> None:
        """DutError unless started."""
        if not self.running:
            raise DutError(f"{self.node} (sim): health check: the simulated DUT is not started")

    def stop(self) -> None:
        """Mark as stopped (idempotent)."""
        self.running = False

    def telemetry(self) -> dict[str, str]:
        """What the simulated DUT is: ``state``, ``family``, ``cores`` and ``capacity``.

        ``state``: simulated inside the sim TG, mode, ports, running or not;
        ``family`` and ``cores``: what it was configured for; ``capacity``:
        what the sim TG modelled (family, frame size, cores, Mpps, model).
        """
        config = self.config
        mode = config.mode if config is not None else "not configured"
        ports = (
            " ".join(f"{p.key}->{p.routed_prefix}" for p in config.ports)
            if config is not None
            else "-"
        )
        family = "-" if config is None or config.family is None else config.family.family
        return {
            "state": (
                f"simulated DUT (the loss model lives in the sim TG): mode={mode} ports={ports} "
                f"{'running' if self.running else 'stopped'}, started {self.starts} time(s)"
            ),
            "family": family,
            "cores": "-" if config is None else str(config.cores),
            "capacity": _describe(modelled(self._node)),
        }


def _describe(dut: ModelledDut | None) -> str:
    """The ``capacity`` telemetry line of what the sim TG modelled."""
    if dut is None:
        return "not modelled yet: no sim TG was made for this DUT"
    if dut.capacity is None:
        return f"drawn from the seed (no traffic family given): {dut.model!r}"
    return f"{dut.capacity.describe()}; {dut.model!r}"


DESCRIPTION = DriverDescription(
    name="sim",
    role="DUT",
    summary="a simulated DUT: a loss model inside the sim TG (no I/O)",
    options=SimDutOptions,
    factory=SimDutDriver,
    access=("local",),
    default_access="local",
    peers=("sim",),
    port_driver=lambda node: "sim",
    version=simulator_version,
    family_setup="every",
)
