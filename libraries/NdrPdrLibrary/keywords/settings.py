"""Check Search Settings: the suite's search variables, checked before the testbed is built."""

from __future__ import annotations

from ndrpdr.errors import NdrPdrError
from ndrpdr.results.irregular import IrregularPolicy
from ndrpdr.search import ALGORITHMS
from ndrpdr.searchlimits import Given, check_search_settings
from NdrPdrLibrary.keywords.component import Component, keyword

#: Variable name -> setting key of ``ndrpdr.searchlimits`` (the rest: the name in lower case).
_KEYS = {"LATENCY_TRIAL_DURATION": "latency_duration"}
#: Variables checked here beyond ``check_search_settings``'s keys.
_CHOICES = {
    "SEARCH_ALGORITHM": ALGORITHMS,
    "IRREGULAR": tuple(policy.value for policy in IrregularPolicy),
    "LATENCY": ("true", "false"),
    "INTERMEDIATE_TRIALS": ("true", "false"),
}
#: `Find NDR And PDR`'s argument name -> the variable it comes from, where the two differ (the
#: rest: the argument in upper case), so one dictionary of settings serves both keywords.
_VARIABLE_OF = {"ALGORITHM": "SEARCH_ALGORITHM"}
_SETTING_KEYS = (
    "final_trial_duration",
    "initial_trial_duration",
    "duration_sum",
    "max_search_time",
    "goal_width",
    "exceed_ratio",
    "loss_ratios",
    "pdr_loss_ratio",
    "latency_duration",
    "min_rate",
    "max_rate",
)


def _variable(name: str) -> str:
    """The variable an argument ``name`` of Check Search Settings stands for (upper case)."""
    return _VARIABLE_OF.get(name.upper(), name.upper())


def variable_given(name: str, value: object) -> tuple[str, Given]:
    """(setting key, Given named ``${NAME}``) of a variable; NdrPdrError for an unknown name."""
    variable = _variable(name)
    key = _KEYS.get(variable, variable.lower())
    if key not in _SETTING_KEYS and variable not in _CHOICES:
        known = sorted([*(k.upper() for k in _SETTING_KEYS), *_KEYS, *_CHOICES])
        raise NdrPdrError(f"Check Search Settings: unknown variable {name!r}; known: {known}")
    return key, Given(f"${{{variable}}}", value)


class SettingsKeywords(Component):
    """Check Search Settings."""

    @keyword("Check Search Settings", tags=("search",))
    def check_search_settings(self, **variables: object) -> None:
        """Check the search variables before anything starts; fail naming the bad one.

        Call it in the suite setup before `Set Up Testbed`: a bad value fails
        the suite before any testbed is built, with a message naming the
        variable, its value and the accepted range (``${MIN_RATE}=0: must be
        more than 0; accepted: ...``). Give each variable by its name,
        ``MIN_RATE=${MIN_RATE}``, or by the name of the `Find NDR And PDR`
        argument it feeds (``min_rate=${MIN_RATE}``,
        ``algorithm=${SEARCH_ALGORITHM}``), so one dictionary of settings
        serves both keywords (``&{SEARCH_SETTINGS}`` of
        ``resources/performance.resource``). A rate in % or bps is checked
        against the TG's maximum when the search starts, still naming the
        variable. The variables and their accepted values: "Running the
        suites" in the manual (docs/running.rst, The search settings).

        Example:
        | Check Search Settings | MIN_RATE=${MIN_RATE} | MAX_RATE=${MAX_RATE} |
        | ... | FINAL_TRIAL_DURATION=${FINAL_TRIAL_DURATION} |
        """
        given: dict[str, Given] = {}
        for name, value in variables.items():
            key, item = variable_given(name, value)
            choices = _CHOICES.get(_variable(name))
            if choices is not None:
                if value is not None and str(value).strip().lower() not in choices:
                    raise item.bad("not a choice", ", ".join(choices))
                continue
            given[key] = item
        check_search_settings(given, min_percent_of_tg=True)  # the error names the variable
        self.ctx.search_variables = given
