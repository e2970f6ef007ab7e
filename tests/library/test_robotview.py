"""What Robot is shown of the keyword arguments: Libdoc's spec, and Robot converting with it.

Libdoc runs for real (``python -m robot.libdoc`` to JSON) and so does Robot
(a generated suite on the simulator).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from library_helpers import robot_results, run_robot

from ndrpdr.results.irregular import IrregularPolicy
from NdrPdrLibrary.argtypes import Duration, FrameSize, Rate, SearchAlgorithm, TrafficProfile
from NdrPdrLibrary.robotview import CONVERTERS, real_value, robot_arguments, robot_type
from robot_runner import LIBRARIES, run_python

# -- the mapping ----------------------------------------------------------------------------


def test_enums_are_shown_named_as_users_type_them() -> None:
    shown = robot_type(SearchAlgorithm)
    assert isinstance(shown, type)
    assert shown is not SearchAlgorithm
    assert shown.__name__ == "SearchAlgorithm"
    assert shown.__doc__ == SearchAlgorithm.__doc__
    assert list(shown.__members__) == ["mlr", "binary", "bswlv"]
    assert CONVERTERS[shown]("BSWLV") is SearchAlgorithm.BSWLV


def test_a_family_is_no_enum_any_more() -> None:
    """Any family id, a lab's too: TrafficProfile is shown as itself, converted by the registry."""
    assert robot_type(TrafficProfile) is TrafficProfile
    assert CONVERTERS[TrafficProfile]("ETHIP6-IP6BASE") == TrafficProfile("ethip6-ip6base")


def test_optional_types_are_shown_as_one_type() -> None:
    shown = robot_type(Rate | None)
    assert isinstance(shown, type)
    assert shown.__name__ == "Rate"
    assert shown.__doc__ == Rate.__doc__
    convert = CONVERTERS[shown]
    assert convert("10Mpps") == Rate("10Mpps")
    assert convert(" none ") is None
    assert convert("") is None
    assert convert(None) is None
    assert robot_type(Duration | None) is not robot_type(Rate | None)
    assert robot_type(Rate) is Rate  # a plain Rate is shown as it is
    assert robot_type(int | None) == int | None  # not one of ours
    assert robot_type(Rate | Duration | None) == Rate | Duration | None


def test_defaults_map_back_to_the_real_members() -> None:
    spec = robot_arguments(["rate", ("algorithm", SearchAlgorithm.MLR), ("flows", None)])
    shown = spec[1][1]
    assert shown.name == "mlr"
    assert spec[0] == "rate"
    assert spec[2] == ("flows", None)
    assert real_value(shown) is SearchAlgorithm.MLR
    assert real_value(IrregularPolicy.WARN) is IrregularPolicy.WARN
    assert real_value("mlr") == "mlr"


# -- Libdoc ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Libdoc's JSON spec of NdrPdrLibrary, written by ``python -m robot.libdoc``."""
    out = tmp_path_factory.mktemp("libdoc") / "NdrPdrLibrary.json"
    library = f"{LIBRARIES / 'NdrPdrLibrary'}::/nonexistent/topology.yaml"
    done = run_python(
        ["-m", "robot.libdoc", "--format", "JSON", "--specdocformat", "RAW", library, str(out)]
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    assert isinstance(data, dict)
    return data


def _args(spec: dict[str, Any], keyword: str) -> dict[str, dict[str, Any]]:
    found = next(kw for kw in spec["keywords"] if kw["name"] == keyword)
    return {arg["name"]: arg for arg in found["args"]}


def _typedoc(spec: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in spec["typedocs"] if t["name"] == name)


@pytest.mark.parametrize(
    ("keyword", "argument", "default"),
    [
        ("Find NDR And PDR", "profile", "ethip4-ip4base"),
        ("Find NDR And PDR", "algorithm", "mlr"),
        ("Find NDR And PDR", "irregular", "fail"),
        ("Find Throughput With Binary Search", "algorithm", "binary"),
        ("Configure DUTs", "mode", "ip4base"),
        ("Measure MRR", "profile", "ethip4-ip4base"),
        ("Measure MRR", "rate", "100%"),
        ("Measure MRR", "trial_duration", "1s"),
    ],
)
def test_libdoc_shows_defaults_as_users_type_them(
    spec: dict[str, Any], keyword: str, argument: str, default: str
) -> None:
    arg = _args(spec, keyword)[argument]
    assert arg["defaultValue"] == default
    assert arg["repr"].endswith(f" = {default}")


@pytest.mark.parametrize(
    ("name", "members"),
    [
        ("SearchAlgorithm", ["mlr", "binary", "bswlv"]),
        ("BinaryAlgorithm", ["binary", "bswlv"]),
        ("DutMode", ["ip4base", "l2xc"]),
        ("IrregularPolicy", ["fail", "warn"]),
    ],
)
def test_libdoc_lists_enum_members_as_users_type_them(
    spec: dict[str, Any], name: str, members: list[str]
) -> None:
    typedoc = _typedoc(spec, name)
    assert typedoc["type"] == "Enum"
    assert [m["name"] for m in typedoc["members"]] == members  # Libdoc's "Allowed Values"
    assert [m["value"] for m in typedoc["members"]] == members


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("Rate", ("frames per second", "Mpps", "Gbps", "%", "20 B of L1 overhead", "``NONE``")),
        ("Duration", ("seconds", "250ms", "1m 30s", "``min``", "``h``", "``NONE``")),
        ("FrameSize", ("FCS", "64 to 9018", "64B", "IMIX", "7:4:1")),
        ("TrafficProfile", ("CSIT id", "``ethip6-ip6base``", "3-node", "NDRPDR_FAMILIES")),
    ],
)
def test_libdoc_documents_the_custom_types(
    spec: dict[str, Any], name: str, words: tuple[str, ...]
) -> None:
    typedoc = _typedoc(spec, name)
    assert typedoc["type"] == "Custom"
    for word in words:
        assert word in typedoc["doc"], word
    assert "Converter for Robot Framework" not in typedoc["doc"]
    assert "Measure MRR" in typedoc["usages"]


def test_the_loss_ratios_keyword_takes_find_ndr_and_pdrs_arguments(spec: dict[str, Any]) -> None:
    """An alias (``component.alias``): one argument list, read through ``__wrapped__``."""
    ratios = next(kw for kw in spec["keywords"] if kw["name"] == "Find Throughput For Loss Ratios")
    ndrpdr = next(kw for kw in spec["keywords"] if kw["name"] == "Find NDR And PDR")
    assert ratios["args"] == ndrpdr["args"]
    assert [arg["name"] for arg in ratios["args"][:3]] == ["profile", "frame_size", "loss_ratios"]
    assert ratios["args"][3]["kind"] == "NAMED_ONLY_MARKER"
    assert ratios["doc"].startswith("Find the throughput for each of ``loss_ratios``")
    assert ratios["tags"] == ["search"]


def test_libdoc_shows_an_optional_rate_as_a_rate_defaulting_to_none(
    spec: dict[str, Any],
) -> None:
    for argument in ("min_rate", "max_rate"):
        arg = _args(spec, "Find NDR And PDR")[argument]
        assert arg["type"]["name"] == "Rate"
        assert arg["type"]["typedoc"] == "Rate"
        assert arg["defaultValue"] == "None"
    assert len([t for t in spec["typedocs"] if t["name"] == "Rate"]) == 1
    usages = _typedoc(spec, "Rate")["usages"]
    assert {"Find NDR And PDR", "Send Traffic At Rate For Duration"} <= set(usages)


# -- Robot converting -----------------------------------------------------------------------

_SUITE = """\
*** Settings ***
Library    NdrPdrLibrary


*** Test Cases ***
Bad Optional Rate
    Find NDR And PDR    min_rate=fast

Bad Optional Duration
    Find NDR And PDR    max_search_time=soon

Optional Rate Given As None
    Find Throughput With Binary Search    ethip4-ip4base    64    trial_duration=1s
    ...    min_rate=NONE    max_rate=${EMPTY}    max_search_time=NONE
    ${record} =    Get Last Search Record
    Set Test Message    ${record}[search][algorithm] ${record}[profile][name]

Default Filled In By Robot
    ${trial} =    Send Traffic At Rate For Duration    1Mpps    1s    frame_size=IMIX
    Set Test Message    ${trial}[load]

Enum As Users Type It
    ${trial} =    Send Traffic At Rate For Duration    1Mpps    1s    eth-l2xcbase
    Set Test Message    ${trial}[load]

MRR Without Trials
    Measure MRR    trials=0
"""


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """(status, message) of every test of ``_SUITE``, run by Robot on the simulator."""
    directory = tmp_path_factory.mktemp("robotview")
    process, output = run_robot(directory, _SUITE)
    assert process.returncode == 3, process.stdout + process.stderr  # the 3 bad ones fail
    return {name: (test.status, test.message) for name, test in robot_results(output).items()}


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        (
            "Bad Optional Rate",
            "Argument 'min_rate' got value 'fast' that cannot be converted to Rate: "
            "rate 'fast' is not valid: give",
        ),
        (
            "Bad Optional Duration",
            "Argument 'max_search_time' got value 'soon' that cannot be converted to Duration: "
            "duration 'soon' is not valid: give",
        ),
    ],
)
def test_robot_says_why_an_optional_value_is_bad(
    ran: dict[str, tuple[str, str]], test: str, expected: str
) -> None:
    status, message = ran[test]
    assert status == "FAIL"
    assert expected in message, message


def test_robot_takes_none_for_an_optional_rate(ran: dict[str, tuple[str, str]]) -> None:
    status, message = ran["Optional Rate Given As None"]
    assert status == "PASS", message
    assert message == "binary ethip4-ip4base"


@pytest.mark.parametrize("test", ["Default Filled In By Robot", "Enum As Users Type It"])
def test_robot_passes_real_members(ran: dict[str, tuple[str, str]], test: str) -> None:
    status, message = ran[test]
    assert status == "PASS", message
    assert float(message) == 1e6


def test_robot_mrr_without_trials_names_the_argument(ran: dict[str, tuple[str, str]]) -> None:
    status, message = ran["MRR Without Trials"]
    assert status == "FAIL"
    assert message == "trials=0: Measure MRR needs a trial; accepted: 1 or more trials"


def test_frame_size_is_documented_by_its_class() -> None:
    assert FrameSize.from_text.__doc__ is None  # Libdoc would show it in place of the class's
    assert Rate.from_text.__doc__ is None
    assert Duration.from_text.__doc__ is None
