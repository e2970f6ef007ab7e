"""The soak keyword: Find Critical Load (CSIT's soak test type, our estimator)."""

from __future__ import annotations

from typing import TypedDict

from ndrpdr.search.soak import SOAK_LOSS_RATIO, SoakResult
from ndrpdr.searchlimits import Given
from ndrpdr.soakrun import SoakHooks, SoakRequest, run_soak
from NdrPdrLibrary import robotout
from NdrPdrLibrary.argtypes import Duration, FrameSize, Rate, TrafficProfile
from NdrPdrLibrary.keywords.component import Component, keyword
from NdrPdrLibrary.publish import record_publisher
from NdrPdrLibrary.traffic import open_traffic, prepared_tg, trial_printer


class CriticalLoad(TypedDict):
    """What `Find Critical Load` returns [frames per second, aggregate over directions].

    | =Key= | =Value= |
    | ``median`` | the critical load's estimate (posterior median) |
    | ``avg`` | the posterior mean (CSIT's avg; above the median when loss comes in bursts) |
    | ``stdev`` | the posterior's standard deviation |
    | ``lower``, ``upper`` | ``avg`` minus / plus ``stdev`` (CSIT's soak bounds) |
    | ``low``, ``high`` | the 95 % interval |
    | ``trials`` | number of trials measured |
    """

    median: float
    avg: float
    stdev: float
    lower: float
    upper: float
    low: float
    high: float
    trials: int


def _outcome(result: SoakResult) -> CriticalLoad:
    return CriticalLoad(
        median=result.critical_load,
        avg=result.mean,
        stdev=result.stdev,
        lower=result.lower,
        upper=result.upper,
        low=result.low,
        high=result.high,
        trials=len(result.trials),
    )


class SoakKeywords(Component):
    """Find Critical Load."""

    @keyword("Find Critical Load", tags=("search",))
    def find_critical_load(
        self,
        profile: TrafficProfile = TrafficProfile.ETHIP4_IP4BASE,
        frame_size: FrameSize = FrameSize(64),
        *,
        soak_time: Duration = Duration(1800.0),
        loss_ratio: float = SOAK_LOSS_RATIO,
        initial_trial_duration: Duration = Duration(1.0),
        min_rate: Rate | None = None,
        max_rate: Rate | None = None,
        bidirectional: bool = True,
        flows: int | None = None,
    ) -> CriticalLoad:
        """Soak search: estimate the load the DUT takes for long at ``loss_ratio`` (1e-7).

        FD.io CSIT's soak test type, with an estimator of our own: trials
        whose durations grow as the search goes, each at the load where the
        critical load most likely is, until ``soak_time`` of trial seconds is
        spent (simulated time on the simulator: a soak takes seconds).
        Returns a `CriticalLoad`; the test gets the estimate as its message
        and metadata (``SOAK_AVG``...), a JSON record of kind ``soak`` (also
        when a trial fails) and the trial table in the log.

        - ``profile``, ``frame_size``: the traffic (`TrafficProfile`, `FrameSize`)
        - ``soak_time``: trial seconds to spend (default 30 min, CSIT's)
        - ``loss_ratio``: the target, the long-run loss ratio at the critical load
        - ``initial_trial_duration``: the first trials' duration
        - ``min_rate``, ``max_rate``: the loads tried (`Rate`); default max /
          1000 (at least 10 kpps) and the TG's maximum
        - ``bidirectional``, ``flows``: as for `Find NDR And PDR`

        Details are in the manual: the estimator and its accuracy in "The
        search" (docs/search-engine.rst, Soak tests); the message, metadata,
        record and loss in bursts in "Reading the results"
        (docs/results.rst).

        Example:
        | ${soak} = | Find Critical Load | ethip4-ip4base | 64 | soak_time=30 min |
        """
        if not 0.0 < loss_ratio < 1.0:
            raise Given("loss_ratio", loss_ratio).bad("the soak's target", "a ratio in (0, 1)")
        traffic = open_traffic(
            self.ctx, profile, frame_size, bidirectional=bidirectional, flows=flows
        )
        setup = traffic.setup(self.ctx)
        settings = setup.soak_settings(
            None if min_rate is None else Given("min_rate", str(min_rate)),
            None if max_rate is None else Given("max_rate", str(max_rate)),
            loss_ratio=loss_ratio,
            time_budget_s=float(soak_time),
            min_percent_of_tg=True,
        )
        robotout.console(
            f"\nsoak search: {float(soak_time):g} s for loss ratio {loss_ratio:g}, "
            f"{traffic.describe()}"
        )
        run = run_soak(
            prepared_tg(self.ctx, traffic),
            SoakRequest(
                setup.traffic,
                settings,
                initial_duration_s=min(float(initial_trial_duration), float(soak_time)),
            ),
            SoakHooks(
                progress=trial_printer(self.ctx),
                finish=record_publisher(self.ctx),  # also when it fails
            ),
        )
        if run.failure is not None:  # the record is published: the failure as raised
            raise run.failure
        assert run.result is not None  # a soak that did not fail has its result
        return _outcome(run.result)
