"""TrexAstfTrafficGenerator: one stateful family's trials on TRex in ASTF mode.

A stateful family (``Profile.transactions``) does not send streams of
frames: TRex opens connections from the clients behind TRex port 0 to the
servers behind port 1 (the family's ``Transactions.clients`` and
``servers``, port ``SERVER_PORT`` of ``profiles.transactions``), with
the family's ASTF profile (``profile.py``). The session serves it in
ASTF mode (``TrexSession.use_mode``: TRex restarted with ``--astf`` if it
ran stateless). One trial at ``load`` (the family's
unit: connections/s for ``cps``, frames/s for ``tput``), as CSIT's ASTF
traffic script runs one:

1. ``reset``; ``load_profile`` (clears the counters);
2. ``start`` at ASTF's multiplier (``counts.astf_multiplier``:
   transactions started per second) for the time the family's whole scale
   takes at that rate (``Transactions.duration_s``; the search's trial
   duration does not apply: a trial is the scale), plus ``CLOSE_GRACE_S``
   for the last transactions to finish;
3. wait for the profile to end (stopped at the cutoff, as a stateless
   trial is);
4. ``get_stats``; ``counts.astf_trial_result`` counts offered and
   forwarded as CSIT does.

The maximum load is the sending ports' line rate at the frame size (as
the stateless driver finds it) in frames/s, divided by a transaction's
frames for ``cps``. No latency trials (``measure_latency`` says so by
returning None): CSIT measures none for these families either.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from ndrpdr.profiles import FrameSize, Profile, Transactions
from ndrpdr.profiles.transactions import SERVER_PORT
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError, UnsupportedTrafficError, checked_trial
from ndrpdr.trafficgen.latency import LatencyResult
from ndrpdr.trafficgen.trex.astf.client import AstfClient
from ndrpdr.trafficgen.trex.astf.counts import astf_multiplier, astf_trial_result
from ndrpdr.trafficgen.trex.astf.profile import astf_spec
from ndrpdr.trafficgen.trex.client import TrexMode
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.server import missing_astf_schema
from ndrpdr.trafficgen.trex.session import PORTS, TrexSession

#: Time the last transactions get to finish after the scale's time is up [s].
CLOSE_GRACE_S = 1.0


def check_astf_server(session: TrexSession) -> None:
    """UnsupportedTrafficError (the test is skipped) when the TRex this session starts lacks
    the file its ASTF mode needs (``server.ASTF_SCHEMA``; TRex's v3.08 bundle leaves it out).

    Only a server started here is looked at (one started by hand is the
    lab's to prepare).
    """
    if session.access is None or not session.options.start_server:
        return
    missing = missing_astf_schema(session.access, session.options)
    if missing is not None:
        raise UnsupportedTrafficError(
            f"{session.node}: TRex cannot run ASTF (stateful families): {missing} is missing, "
            "and without it TRex's ASTF server exits when a client connects; copy "
            "scripts/astf_schema.json of TRex's source (trex-core, the server's version) there"
        )


class TrexAstfTrafficGenerator(TrexTrafficGenerator):
    """The ``trex`` TG driver for a stateful family: ASTF trials over the TrexSession."""

    stateful = True
    mode: TrexMode = "astf"

    def __init__(
        self,
        topology: Topology,
        profile: Profile,
        frame_size: FrameSize,
        *,
        session: TrexSession,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """Check the family, the frame size and the session's TG; no I/O.

        TrafficGeneratorError for a family that is not stateful or a frame
        size that leaves no payload (names the node and the size).
        """
        super().__init__(topology, profile, frame_size, session=session, clock=clock, sleep=sleep)
        if profile.transactions is None:
            raise TrafficGeneratorError(f"{self.node}: family {profile.name} is not stateful")
        self.transactions: Transactions = profile.transactions
        traffic = self.transactions
        if not isinstance(frame_size, int):
            raise TrafficGeneratorError(
                f"{self.node}: a stateful family's frames have one size, not {frame_size!r}"
            )
        try:
            self.spec: Mapping[str, Any] = astf_spec(
                traffic, frame_size, traffic.clients, traffic.servers, SERVER_PORT
            )
        except ValueError as exc:
            raise TrafficGeneratorError(f"{self.node}: {profile.name}: {exc}") from exc

    @property
    def max_load_pps(self) -> float:
        """Highest load in the family's unit: line-rate frames/s (``cps``: over a
        transaction's frames); may open the session to read the port speeds."""
        frames = super().max_load_pps
        traffic = self.transactions
        return frames if traffic.kind == "tput" else frames / traffic.packets_aggregated

    def measure(self, duration: float, load: float) -> TrialResult:
        """One trial of the family's scale at ``load`` (``duration`` is checked, not used)."""
        duration, load = checked_trial(self.node, duration, load, self.max_load_pps)
        if load == 0:
            return TrialResult(duration, load, 0, forwarded_count=0, intended_count=0)
        client = self._astf_client()
        try:
            with self.session.watched():
                stats = self._astf_trial(client, load)
        except BaseException:
            self._stop_ports()
            raise
        return astf_trial_result(self.transactions, load, stats, self.node)

    def measure_latency(self, duration_s: float, load_pps: float) -> LatencyResult | None:
        """None: no latency trials for a stateful family (see the module doc)."""
        return None

    def _astf_client(self) -> AstfClient:
        client = self._open()
        if not isinstance(client, AstfClient):
            raise TrafficGeneratorError(
                f"{self.node}: the TRex session's client {client!r} has no ASTF calls"
            )
        return client

    def _astf_trial(self, client: AstfClient, load: float) -> Mapping[Any, Any]:
        mult = astf_multiplier(self.transactions, load)
        run_s = self.transactions.duration_s(load) + CLOSE_GRACE_S
        with self.session.lock:
            self._call("reset", lambda: client.reset(PORTS))
            self._call("load_profile", lambda: client.load_profile(self.spec))
            started = self._call(
                f"start at multiplier {mult:.3f} for {run_s:g} s",
                lambda: client.start(
                    PORTS, mult=f"{mult:.6f}", duration=run_s, force=True, core_mask="split"
                ),
            )
        started = self._clock() if started is None else started
        self._wait(client, PORTS, started, run_s)
        self._sleep(self.options.settle_s)
        with self.session.lock:
            return self._call("get_stats", lambda: client.get_stats(PORTS))

    def __repr__(self) -> str:
        return (
            f"TrexAstfTrafficGenerator(node={self.node!r}, session={self.session!r}, "
            f"profile={self.profile.name!r}, frame_size={self.frame_size!r})"
        )
