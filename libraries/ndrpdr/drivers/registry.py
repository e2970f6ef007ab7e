"""Which drivers exist: the built-in ones and any registered with ``register``.

The built-in drivers are described in their own modules (``DESCRIPTION``),
listed once in ``BUILTIN_MODULES``; they are imported on the first lookup,
not when this module is imported. ``register`` adds a driver (a plugin)
the same way, as Robot Framework's ``TypeConverter.register`` adds a type.
"""

from __future__ import annotations

import functools
import importlib
import threading

from ndrpdr.drivers.description import DriverDescription
from ndrpdr.topology.model import NodeType

#: Modules that each define a built-in driver's ``DESCRIPTION``, TGs first.
BUILTIN_MODULES: tuple[str, ...] = (
    "ndrpdr.trafficgen.sim.driver",
    "ndrpdr.trafficgen.local.driver",
    "ndrpdr.trafficgen.trex.description",
    "ndrpdr.dut.sim",
    "ndrpdr.dut.linux",
    "ndrpdr.dut.dpdk.testpmd",
    "ndrpdr.dut.dpdk.l3fwd",
    "ndrpdr.dut.ovs",
    "ndrpdr.dut.vpp.driver",
)

_drivers: dict[tuple[NodeType, str], DriverDescription] = {}
_lock = threading.Lock()


def register(description: DriverDescription) -> DriverDescription:
    """Add ``description`` (ValueError if its role already has a driver of that name)."""
    key = (description.role, description.name)
    with _lock:
        known = _drivers.get(key)
        if known is not None and known is not description:
            raise ValueError(f"a {description.role} driver {description.name!r} exists already")
        _drivers[key] = description
    return description


@functools.cache
def _load_builtins() -> None:
    """Import the built-in drivers' modules and register their descriptions (once)."""
    for name in BUILTIN_MODULES:
        module = importlib.import_module(name)
        description = getattr(module, "DESCRIPTION", None)
        if not isinstance(description, DriverDescription):
            raise TypeError(f"{name} has no DESCRIPTION")
        register(description)


def descriptions(role: NodeType | None = None) -> tuple[DriverDescription, ...]:
    """Every driver (of ``role``), in registration order."""
    _load_builtins()
    return tuple(d for d in _drivers.values() if role is None or d.role == role)


def driver_names(role: NodeType) -> tuple[str, ...]:
    """The names of the ``role`` drivers."""
    return tuple(d.name for d in descriptions(role))


def find(role: NodeType, name: str) -> DriverDescription | None:
    """The ``role`` driver called ``name``, or None."""
    _load_builtins()
    return _drivers.get((role, name))


def describe(role: NodeType, name: str) -> DriverDescription:
    """The ``role`` driver called ``name`` (LookupError naming the known ones)."""
    found = find(role, name)
    if found is None:
        raise LookupError(
            f"no {role} driver {name!r}; {role} drivers: {', '.join(driver_names(role))}"
        )
    return found
