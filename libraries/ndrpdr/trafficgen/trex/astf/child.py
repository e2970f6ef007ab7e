"""TRex's ASTF client in a process of its own: the child program of a stateful family's trials.

The same program as ``child.py`` (same protocol, same rules: standard
library only at import time, run by path with ``python -I``), serving
TRex's ``ASTFClient`` instead of its ``STLClient``. Run by path it has no
``ndrpdr`` package, so it loads its two siblings by path as well:
``../child.py`` (the protocol and the calls both clients share) and
``profile.py`` (builds TRex's ``ASTFProfile`` from the plain spec).

ASTF's calls, as CSIT's ASTF traffic script makes them (facts only):
``reset``, ``load_profile``, ``clear_stats``; ``start`` at a multiplier
(transactions started per second) for a duration with ``nc`` (the trial
ends when its time is up, without waiting for the last flows to close);
``wait_on_traffic``; ``get_stats``; ``stop``. ASTF's client works on all
ports at once, so the ``ports`` arguments the STL calls take are accepted
and not used.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any


def _sibling(name: str, relative: str) -> ModuleType:
    """``<this directory>/<relative>`` loaded by path as ``name`` (the child has no ``ndrpdr``)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), relative)
    spec = importlib.util.spec_from_file_location(f"_ndrpdr_trex_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


if TYPE_CHECKING or __package__:  # imported in the parent (tests): the package's own
    from ndrpdr.trafficgen.trex import child
    from ndrpdr.trafficgen.trex.astf import profile as astfprofile
else:  # run by path in the child: TRex's shared child program is one directory up
    child = _sibling("child", os.path.join(os.pardir, "child.py"))
    astfprofile = _sibling("astfprofile", "profile.py")

#: The calls an ASTF child serves beyond those both children share.
ASTF_CALLS = frozenset({"load_profile"})


def load_astf_api(node: str, client_path: str | None) -> Any:
    """TRex's ``trex.astf.api`` from ``client_path`` (no PyPI package has ASTF's client)."""
    if client_path is None or not os.path.isdir(os.path.join(client_path, "trex", "astf")):
        raise child.ChildError(
            f"nodes.{node}.options.client_path: {client_path} has no trex/astf package; a "
            f"stateful family needs TRex's own client: give the directory "
            f"{child.SHIPPED_CLIENT_DIR} of the server's TRex tree (copied to this machine)"
        )
    if client_path in sys.path:
        sys.path.remove(client_path)
    sys.path.insert(0, client_path)
    try:
        return importlib.import_module("trex.astf.api")
    except Exception as exc:
        raise child.ChildError(
            f"cannot import TRex's ASTF client trex.astf.api from {client_path}: "
            f"{child.error_text(exc)}"
        ) from exc


class AstfServed(child.Served):
    """The calls of an ASTF trial on one ASTFClient (after ``open``)."""

    client_class = "ASTFClient"

    def __init__(self, load: Callable[[str, str | None], Any] = load_astf_api) -> None:
        """``load(node, client_path)`` imports TRex's ASTF API (tests give a stand-in)."""
        super().__init__(load)

    @property
    def calls(self) -> frozenset[str]:
        """The shared calls and ASTF's."""
        return child.CALLS | ASTF_CALLS

    def acquire(self, ports: list[int], force: bool = False) -> None:
        self.client.acquire(force=force)

    def release(self, ports: list[int]) -> None:
        self.client.release()

    def reset(self, ports: list[int]) -> None:
        self.client.reset()

    def load_profile(self, spec: Mapping[str, Any]) -> None:
        """Load the family's profile (``astfprofile.build_astf_profile``) and clear the stats."""
        self.client.load_profile(astfprofile.build_astf_profile(self.api, spec))
        self.client.clear_stats()

    def start(
        self, ports: list[int], mult: str, duration: float, force: bool, core_mask: str
    ) -> float:
        """Start at ``mult`` transactions per second for ``duration`` [s]; when TRex replied.

        ``ports``, ``force`` and ``core_mask`` are the STL call's; ASTF
        starts every port and spreads the flows over the cores itself.
        """
        self.client.start(mult=float(mult), duration=duration, nc=True)
        return time.monotonic()

    def wait_on_traffic(self, ports: list[int], timeout_s: float) -> float | None:
        """When the profile was seen to end [s, ``time.monotonic()``]; None on timeout."""
        try:
            self.client.wait_on_traffic(timeout=timeout_s)
        except Exception as exc:
            if "timeout" in type(exc).__name__.lower():
                return None
            raise
        return time.monotonic()

    def get_stats(self, ports: list[int]) -> Any:
        return dict(self.client.get_stats())

    def stop(self, ports: list[int]) -> None:
        self.client.stop()


if __name__ == "__main__":
    child.main(AstfServed())
