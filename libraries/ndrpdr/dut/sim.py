"""The sim DUT: nothing to drive, the simulated DUT lives inside the sim TG's loss model.

configure / start / stop only record state, so a sim topology runs through
the same steps as a real one; telemetry says that the DUT is simulated.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.access.base import NodeAccess
from ndrpdr.drivers import DriverDescription, option
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.testbed.model import Node
from ndrpdr.trafficgen.sim.models import MODEL_NAMES


@dataclasses.dataclass(frozen=True)
class SimDutOptions:
    """The simulated DUT's options: its loss model (read by the sim TG)."""

    model: str = option("sharp", "loss behaviour of the simulated DUT", choices=MODEL_NAMES)
    seed: int = option(0, "random seed of the model's parameters")


class SimDutDriver:
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
        """``state``: the DUT is simulated inside the sim TG, and what it was configured for."""
        config = self.config
        mode = config.mode if config is not None else "not configured"
        ports = (
            " ".join(f"{p.key}->{p.routed_prefix}" for p in config.ports)
            if config is not None
            else "-"
        )
        return {
            "state": (
                f"simulated DUT (the loss model lives in the sim TG): mode={mode} ports={ports} "
                f"{'running' if self.running else 'stopped'}, started {self.starts} time(s)"
            )
        }


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
)
