"""A Robot library for tests: makes the sim TG raise on a given trial, once.

``Make The Sim TG Fail At Trial    3    tg`` raises TrafficGeneratorError
(a known TG failure) on the third trial measured from then on, ``bug``
raises RuntimeError (an unexpected one). The class's method is patched for
that one trial and put back as it raises. ``Make The Sim TG Fail To Stop``
makes the first ``stop_traffic`` after a trial raise TrafficGeneratorError,
the same way.
"""

from __future__ import annotations

from ndrpdr.search import TrialResult
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

#: What each kind raises.
ERRORS = {
    "tg": lambda: TrafficGeneratorError("TG: the sim TG failed on purpose"),
    "bug": lambda: RuntimeError("a bug in the sim TG"),
}


def make_the_sim_tg_fail_at_trial(number: int, kind: str = "tg") -> None:
    """The ``number``-th (1-based) trial from now raises the ``kind`` of error."""
    original = SimTrafficGenerator.measure
    calls = [0]

    def measure(self: SimTrafficGenerator, duration: float, load: float) -> TrialResult:
        calls[0] += 1
        if calls[0] == int(number):
            SimTrafficGenerator.measure = original  # type: ignore[method-assign]
            raise ERRORS[kind]()
        return original(self, duration, load)

    SimTrafficGenerator.measure = measure  # type: ignore[method-assign]


#: What the sim TG says when it fails to stop on purpose.
STOP_ERROR = "TG: the sim TG did not stop, on purpose"


def make_the_sim_tg_fail_to_stop() -> None:
    """The first ``stop_traffic`` of the sim TG after a trial measured from now raises
    TrafficGeneratorError(STOP_ERROR) (a stop before, of a TG replaced, passes)."""
    measure, stop = SimTrafficGenerator.measure, SimTrafficGenerator.stop_traffic
    measured = [False]

    def measuring(self: SimTrafficGenerator, duration: float, load: float) -> TrialResult:
        measured[0] = True
        return measure(self, duration, load)

    def stopping(self: SimTrafficGenerator) -> None:
        if not measured[0]:
            stop(self)
            return
        SimTrafficGenerator.measure = measure  # type: ignore[method-assign]
        SimTrafficGenerator.stop_traffic = stop  # type: ignore[method-assign]
        raise TrafficGeneratorError(STOP_ERROR)

    SimTrafficGenerator.measure = measuring  # type: ignore[method-assign]
    SimTrafficGenerator.stop_traffic = stopping  # type: ignore[method-assign]
