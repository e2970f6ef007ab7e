"""Search keywords: Find NDR And PDR (one search for both), Find Throughput With Binary Search."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from ndrpdr.console.progress import ProgressOption, ProgressPrinter
from ndrpdr.errors import NdrPdrError
from ndrpdr.goals import PDR_LOSS_RATIO
from ndrpdr.latencyrun import DEFAULT_LATENCY_DURATION_S
from ndrpdr.report.latencysummary import point_line
from ndrpdr.report.summary import search_message
from ndrpdr.results.irregular import ROBOT_NAMES, IrregularPolicy
from ndrpdr.results.searchrecord import GoalEntry, SearchRecord
from ndrpdr.runsetup import allowed_irregular, search_problem
from ndrpdr.search import Goal
from ndrpdr.searchlimits import Given, check_search_settings
from ndrpdr.searchrun import SearchHooks, SearchRequest, SearchRun, run_search
from NdrPdrLibrary import robotout
from NdrPdrLibrary.argtypes import (
    BinaryAlgorithm,
    Duration,
    FrameSize,
    Rate,
    SearchAlgorithm,
    TrafficProfile,
)
from NdrPdrLibrary.context import LibraryContext
from NdrPdrLibrary.keywords.component import Component, alias, keyword
from NdrPdrLibrary.publish import check_writable, publish_record, record_path
from NdrPdrLibrary.traffic import Traffic, open_traffic


class GoalBounds(TypedDict):
    """One goal's result [frames per second, aggregate over directions].

    | =Key= | =Value= |
    | ``label`` | the goal's name: ``NDR``, ``PDR`` or ``loss ≤ 2 %`` |
    | ``loss_ratio`` | the goal's loss ratio (0.02 is 2 %) |
    | ``lower`` | relevant lower bound, None if not found |
    | ``upper`` | relevant upper bound, None if the max load was a lower bound |
    | ``conditional`` | conditional throughput (RFC 9971), None if not found |
    """

    label: str
    loss_ratio: float
    lower: float | None
    upper: float | None
    conditional: float | None


class SearchOutcome(TypedDict):
    """What a search keyword returns: bounds per goal and where the record is.

    | =Key= | =Value= |
    | ``ndr`` | `GoalBounds` of the zero-loss goal (None if not searched) |
    | ``pdr`` | `GoalBounds` of the 0.5 % loss goal (None if not searched) |
    | ``goals`` | list of `GoalBounds`, one per goal in order |
    | ``trials`` | number of trials measured |
    | ``record`` | path of the JSON result record (None if it could not be written) |
    """

    ndr: GoalBounds | None
    pdr: GoalBounds | None
    goals: list[GoalBounds]
    trials: int
    record: str | None


class SearchFailedError(NdrPdrError):
    """The search did not find the bounds asked for (the message says why)."""


def _goal_bounds(record: SearchRecord, entry: GoalEntry) -> GoalBounds:
    return GoalBounds(
        label=record.label(entry),
        loss_ratio=entry.goal.loss_ratio,
        lower=entry.lower_bound_pps,
        upper=entry.upper_bound_pps,
        conditional=entry.conditional_throughput_pps,
    )


def _bound_lines(record: SearchRecord) -> str:
    """The search message's lines after its first (the bounds), each after a newline."""
    return "".join(f"\n{line}" for line in search_message(record.to_json()).splitlines()[1:])


def _robot_given(ctx: LibraryContext, key: str, value: object) -> Given:
    """A keyword argument named as typed (``min_rate``), or as the suite variable
    (``${MIN_RATE}``) `Check Search Settings` saw with the same value."""
    known = ctx.search_variables.get(key)
    if known is not None and value is not None and str(known.value).strip() == str(value):
        return known
    return Given(key, value)


class SearchKeywords(Component):
    """Find NDR And PDR, Find Throughput With Binary Search."""

    def _search(
        self,
        *,
        kind: str,
        traffic: Traffic,
        goals: Sequence[Goal],
        algorithm: str,
        intermediate_trials: bool = False,
        min_rate: Rate | None,
        max_rate: Rate | None,
        max_search_time: Duration | None,
        pdr_loss_ratio: float = PDR_LOSS_RATIO,
        latency_duration_s: float | None = None,
        irregular: IrregularPolicy = IrregularPolicy.FAIL,
    ) -> SearchOutcome:
        ctx = self.ctx
        setup = traffic.setup(ctx)
        low, high = setup.load_range(  # before any trial; names the argument or the variable
            None if min_rate is None else _robot_given(ctx, "min_rate", str(min_rate)),
            None if max_rate is None else _robot_given(ctx, "max_rate", str(max_rate)),
            min_percent_of_tg=True,
        )
        robotout.console(f"\n{kind} search ({algorithm}): {traffic.describe()}")
        progress = None
        if ctx.progress is ProgressOption.TRIALS and robotout.console_kind().shows_trials:
            progress = ProgressPrinter(robotout.console, pdr_loss_ratio)

        target = record_path(ctx, kind.lower())  # rewritten there as the search goes
        unwritable = check_writable(target)
        if unwritable is not None:  # before the search spends its time, not after
            raise SearchFailedError(f"{kind} search not started: {unwritable}")
        published: list[Path | None] = []

        def finish(outcome: SearchRun) -> None:  # before a Ctrl-C or a timeout propagates
            record = outcome.record_json()  # publishing tags IRREGULAR too
            published.append(publish_record(ctx, record, path=target))

        request = SearchRequest(
            traffic=setup.traffic,
            goals=tuple(goals),
            algorithm=algorithm,
            intermediate_trials=intermediate_trials,
            min_load_pps=low,
            max_load_pps=high,
            max_search_time_s=max_search_time,
            pdr_loss_ratio=pdr_loss_ratio,
            calibrate=True,
            latency_duration_s=latency_duration_s,
            irregular=irregular,
            setting_names=ROBOT_NAMES,
        )
        hooks = SearchHooks(
            progress=progress,
            notice=robotout.warn,
            latency_progress=None
            if progress is None
            else lambda point: robotout.console(point_line(point.to_json())),
            record_path=target,
            finish=finish,
            failed=lambda error: robotout.console(f"{kind} search FAIL: {error}"),
        )
        outcome = run_search(traffic.tg, request, setup.search_hooks(hooks))
        record, (path,) = outcome.record, published
        kept = f" ({len(record.trials)} trials kept in {path or 'the log'})"
        problem = search_problem(outcome)
        if problem is not None:
            word, text = problem
            # irregular: with the bounds found, if any (a time cap); failed: with the bounds
            found = word == "failed" or any(g.lower_bound_pps is not None for g in record.goals)
            bounds = _bound_lines(record) if found else ""
            raise SearchFailedError(f"{kind} search {word}: {text}{kept}{bounds}")
        if ctx.record_error is not None:
            raise SearchFailedError(f"{kind} search: {ctx.record_error}{_bound_lines(record)}")
        for line in allowed_irregular(outcome, "irregular=warn"):
            robotout.warn(f"{kind} {line}")
        goal_bounds = [_goal_bounds(record, entry) for entry in record.goals]
        ndr, pdr = record.ndr, record.pdr
        return SearchOutcome(
            ndr=None if ndr is None else _goal_bounds(record, ndr),
            pdr=None if pdr is None else _goal_bounds(record, pdr),
            goals=goal_bounds,
            trials=len(record.trials),
            record=None if path is None else str(path),
        )

    @keyword("Find NDR And PDR", tags=("search",))
    def find_ndr_and_pdr(
        self,
        profile: TrafficProfile = TrafficProfile.ETHIP4_IP4BASE,
        frame_size: FrameSize = FrameSize(64),
        loss_ratios: Sequence[float] | str | None = None,
        *,
        final_trial_duration: Duration = Duration(1.0),
        initial_trial_duration: Duration | None = None,
        duration_sum: Duration = Duration(21.0),
        goal_width: float = 0.005,
        exceed_ratio: float = 0.5,
        pdr_loss_ratio: float = PDR_LOSS_RATIO,
        min_rate: Rate | None = None,
        max_rate: Rate | None = None,
        max_search_time: Duration | None = Duration(1200.0),
        bidirectional: bool = True,
        flows: int | None = None,
        algorithm: SearchAlgorithm = SearchAlgorithm.MLR,
        intermediate_trials: bool = False,
        latency: bool = True,
        latency_trial_duration: Duration = Duration(DEFAULT_LATENCY_DURATION_S),
        irregular: IrregularPolicy = IrregularPolicy.FAIL,
    ) -> SearchOutcome:
        """Find NDR (zero loss) and PDR (loss ratio <= 0.5 %) with one search.

        Short trials first, full-length trials only near the end (MLRsearch,
        RFC 9971); the defaults are FD.io CSIT's production goals. Returns a
        `SearchOutcome`: each goal's bounds [frames per second, aggregate over
        directions] and where the record is. The test gets the bounds as its
        message and metadata, a JSON record, and in the log a plot and a table
        of the trials. A failed search or an irregular result fails the
        keyword; the trials measured so far stay in the record.

        - ``profile``, ``frame_size``: the traffic (`TrafficProfile`, `FrameSize`)
        - ``loss_ratios``: one goal per loss ratio, ``0, 0.005, 0.02`` or a
          list (default NDR and PDR)
        - ``final_trial_duration``, ``initial_trial_duration``,
          ``duration_sum``, ``goal_width``, ``exceed_ratio``,
          ``pdr_loss_ratio``: the goals, in RFC 9971's terms
        - ``min_rate``, ``max_rate``: the loads tried (`Rate`); default max /
          1000 (at least 10 kpps) and the TG's maximum
        - ``max_search_time``: cap on the sum of trial durations (``None``: no cap)
        - ``bidirectional``, ``flows``: both directions, or TG port 1 to port
          2 only; flows per direction of a multi-flow family
        - ``algorithm``: a `SearchAlgorithm`; ``intermediate_trials`` (``mlr``
          only): an intermediate-duration trial before a load's first
          full-length one
        - ``latency``, ``latency_trial_duration``: latency after the search,
          at 0, 10, 50 and 90 % of PDR, each trial this long
        - ``irregular``: an `IrregularPolicy`, ``fail`` or ``warn``

        Settings out of range fail before the first trial, as in `Check
        Search Settings`. Details are in the manual: the goals and algorithms
        in "The search" (docs/search-engine.rst); the message, metadata,
        record, irregular and incomplete results, the max-load calibration
        and latency in "Reading the results" (docs/results.rst); a stateful
        family's ramp-up in "Test families" (docs/families.rst).

        Example:
        | ${result} = | Find NDR And PDR | ethip4-ip4base | 64 |
        | Find NDR And PDR | eth-l2xcbase | IMIX | final_trial_duration=10s | duration_sum=30s |
        | Should Be True | ${result}[ndr][lower] <= ${result}[pdr][lower] |
        """
        values = {
            "final_trial_duration": final_trial_duration,
            "initial_trial_duration": initial_trial_duration,
            "duration_sum": duration_sum,
            "max_search_time": max_search_time,
            "goal_width": goal_width,
            "exceed_ratio": exceed_ratio,
            "pdr_loss_ratio": pdr_loss_ratio,
            "loss_ratios": loss_ratios,
        }
        given = {key: _robot_given(self.ctx, key, value) for key, value in values.items()}
        given["latency_duration"] = _robot_given(  # named as the keyword's argument
            self.ctx, "latency_trial_duration", latency_trial_duration
        )
        checked = check_search_settings(given, min_percent_of_tg=True)
        goals = checked.goals(pdr_loss_ratio)
        traffic = open_traffic(self.ctx, profile, frame_size, bidirectional, flows)
        return self._search(
            kind="NDRPDR",
            traffic=traffic,
            goals=goals,
            algorithm=algorithm.value,
            intermediate_trials=intermediate_trials,
            min_rate=min_rate,
            max_rate=max_rate,
            max_search_time=max_search_time,
            pdr_loss_ratio=pdr_loss_ratio,
            latency_duration_s=checked.latency_duration_s if latency else None,
            irregular=irregular,
        )

    find_throughput_for_loss_ratios = alias(
        find_ndr_and_pdr,
        "Find Throughput For Loss Ratios",
        tags=("search",),
        doc="""Find the throughput for each of ``loss_ratios`` with one search.

        `Find NDR And PDR` by a name that says what it does with
        ``loss_ratios``: the same arguments, results and failures.
        ``loss_ratios`` are fractions (0.005 is 0.5 %), comma or space
        separated (``0, 0.005, 0.02``) or a list; each is one goal, the other
        settings shared, and one search serves them all (every trial informs
        every goal). 0 is called NDR, ``pdr_loss_ratio`` PDR, any other
        ``loss ≤ 2 %`` (metadata ``LOSS_2PCT_LOWER`` for 0.02,
        ``LOSS_0P1PCT_LOWER`` for 0.001); left out, they are NDR and PDR. The
        returned ``goals`` list holds each goal's bounds in order, with its
        ``label`` and ``loss_ratio``.

        Example:
        | ${result} = | Find Throughput For Loss Ratios | ethip4-ip4base | 64 | 0, 0.005, 0.02 |
        | Should Be True | ${result}[goals][0][lower] <= ${result}[goals][2][lower] |
        """,
    )

    @keyword("Find Throughput With Binary Search", tags=("search",))
    def find_throughput_with_binary_search(
        self,
        profile: TrafficProfile = TrafficProfile.ETHIP4_IP4BASE,
        frame_size: FrameSize = FrameSize(64),
        *,
        loss_ratio: float = 0.0,
        trial_duration: Duration = Duration(60.0),
        goal_width: float = 0.005,
        algorithm: BinaryAlgorithm = BinaryAlgorithm.BINARY,
        min_rate: Rate | None = None,
        max_rate: Rate | None = None,
        max_search_time: Duration | None = None,
        bidirectional: bool = True,
        flows: int | None = None,
        irregular: IrregularPolicy = IrregularPolicy.FAIL,
    ) -> SearchOutcome:
        """Find the throughput for one loss ratio with a classic binary search.

        For comparison with `Find NDR And PDR`, which needs far fewer trial
        seconds for the same answer. ``algorithm`` ``binary`` is RFC 2544's
        search: every trial ``trial_duration`` long (RFC 2544 asks for 60 s),
        the interval halved until it is narrower than ``goal_width``, one
        lossy trial making a load an upper bound; ``bswlv`` is ETSI GS
        NFV-TST 009's binary search with loss verification (a lossy load is
        measured again before it is believed). Other arguments, results, logs
        and failures are as for `Find NDR And PDR`; ``ndr`` is set when
        ``loss_ratio`` is 0 and ``pdr`` when it is 0.005. Details: "The
        search" in the manual (docs/search-engine.rst).

        Example:
        | ${result} = | Find Throughput With Binary Search | ethip4-ip4base | 64 |
        | ... | trial_duration=10s |
        | Log | ${result}[goals][0][lower] |
        """
        exceed = 0.5 if algorithm is BinaryAlgorithm.BSWLV else 0.0
        check_search_settings(
            {
                "final_trial_duration": Given("trial_duration", trial_duration),
                "max_search_time": Given("max_search_time", max_search_time),
                "goal_width": Given("goal_width", goal_width),
            }
        )
        duration = float(trial_duration)
        goal = Goal(
            loss_ratio=loss_ratio,
            exceed_ratio=exceed,
            relative_width=goal_width,
            initial_trial_duration=duration,
            final_trial_duration=duration,
            duration_sum=duration,
        )
        traffic = open_traffic(self.ctx, profile, frame_size, bidirectional, flows)
        return self._search(
            kind="Binary",
            traffic=traffic,
            goals=[goal],
            algorithm=algorithm.value,
            min_rate=min_rate,
            max_rate=max_rate,
            max_search_time=max_search_time,
            irregular=irregular,
        )
