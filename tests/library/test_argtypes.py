"""Keyword argument types: what the converters accept and reject, and Robot using them."""

from __future__ import annotations

import enum
from collections.abc import Callable
from pathlib import Path

import pytest
from library_helpers import SIM, robot_results, run_robot

from ndrpdr.families import profile_of as get_profile
from ndrpdr.families.registry import builtin_families
from ndrpdr.profiles import ProfileError, max_load_pps
from ndrpdr.results.irregular import IrregularPolicy
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from ndrpdr.units import UnitError
from NdrPdrLibrary.argtypes import (
    CONVERTERS,
    BinaryAlgorithm,
    Duration,
    DutMode,
    FrameSize,
    Rate,
    SearchAlgorithm,
    TrafficProfile,
)

#: 64 B frames plus 20 B of L1 overhead, in bits.
BITS_64B = (64 + 20) * 8
#: The simple IMIX's average frame (4246 B / 12) plus 20 B of L1 overhead, in bits.
BITS_IMIX = (4246 / 12 + 20) * 8


def _convert(kind: type) -> Callable[[object], object]:
    converter = CONVERTERS[kind]
    assert callable(converter)
    return converter


# -- Rate -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pps"),
    [
        ("250000", 250_000.0),
        ("250kpps", 250_000.0),
        ("10Mpps", 10e6),
        ("10 mpps", 10e6),
        ("1.5e6", 1.5e6),
        (" 2 Mpps ", 2e6),
    ],
)
def test_rate_frames_per_second(text: str, pps: float) -> None:
    rate = Rate.from_text(text)
    assert isinstance(rate, Rate)
    assert rate.text == text.strip()
    assert str(rate) == text.strip()
    # a pps rate does not depend on the TG's maximum or the frame size
    assert rate.resolve(1e6, 64) == pytest.approx(pps)
    assert rate.resolve(3e7, "IMIX") == pytest.approx(pps)


@pytest.mark.parametrize(("number", "pps"), [(250000, 250_000.0), (1.5e6, 1.5e6)])
def test_rate_from_a_number(number: float, pps: float) -> None:
    """Robot passes ``${250000}`` as an int: it is frames per second."""
    assert Rate.from_text(number).resolve(1.0, 64) == pytest.approx(pps)


@pytest.mark.parametrize(
    ("text", "frame_size", "pps"),
    [
        ("10Gbps", 64, 10e9 / BITS_64B),
        ("400Mbps", 64, 400e6 / BITS_64B),
        ("10Gbps", 1518, 10e9 / ((1518 + 20) * 8)),
        ("10Gbps", 9000, 10e9 / ((9000 + 20) * 8)),
        ("10Gbps", "IMIX", 10e9 / BITS_IMIX),
    ],
)
def test_rate_bit_rates_use_the_frame_size(text: str, frame_size: int | str, pps: float) -> None:
    rate = Rate(text)
    assert rate.resolve(1e6, frame_size) == pytest.approx(pps)  # type: ignore[arg-type]
    bps = 10e9 if text == "10Gbps" else 400e6
    assert rate.resolve(29_761_904.0, frame_size) == pytest.approx(max_load_pps(bps, frame_size))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "maximum", "pps"),
    [("50%", 1e6, 5e5), ("100%", 29_761_904.0, 29_761_904.0), ("0.5 %", 2e7, 1e5)],
)
def test_rate_percent_of_the_maximum(text: str, maximum: float, pps: float) -> None:
    rate = Rate(text)
    assert rate.resolve(maximum, 64) == pytest.approx(pps)
    assert rate.resolve(2 * maximum, 1518) == pytest.approx(2 * pps)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("fast", "is not valid"),
        ("", "is not valid"),
        ("nan", "is not valid"),
        ("0", "must be finite and > 0"),
        ("-1Mpps", "must be finite and > 0"),
        ("1e400", "must be finite and > 0"),
        ("5 parsecs", "unknown unit 'parsecs'"),
        ("150%", "at most 100 %"),
        ("0%", "more than 0 %"),
    ],
)
def test_rate_rejected(text: str, why: str) -> None:
    with pytest.raises(UnitError) as raised:
        Rate.from_text(text)
    message = str(raised.value)
    assert repr(text) in message  # names the value
    assert why in message
    assert isinstance(raised.value, ValueError)  # Robot reports a ValueError as a bad argument


def test_rate_value_semantics() -> None:
    assert Rate("10Mpps") == Rate(" 10Mpps ")
    assert hash(Rate("10Mpps")) == hash(Rate(" 10Mpps "))
    assert Rate("10Mpps") != Rate("20Mpps")
    assert Rate("10Mpps") != "10Mpps"
    assert repr(Rate("50%")) == "Rate('50%')"
    assert len({Rate("1Mpps"), Rate("1Mpps"), Rate("2Mpps")}) == 2


# -- Duration -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "seconds"),
    [
        ("30", 30.0),
        ("0.5", 0.5),
        ("30s", 30.0),
        ("1 min", 60.0),
        ("1m 30s", 90.0),
        ("1 min 30 s", 90.0),
        ("250ms", 0.25),
        ("1h", 3600.0),
        (30, 30.0),
        (0.5, 0.5),
    ],
)
def test_duration_accepted(given: str | float, seconds: float) -> None:
    duration = Duration.from_text(given)
    assert isinstance(duration, Duration)
    assert isinstance(duration, float)
    assert float(duration) == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("given", "shown", "why"),
    [
        ("soon", "'soon'", "is not valid"),
        ("", "''", "is not valid"),
        ("0", "'0'", "must be finite and > 0"),
        ("-1s", "'-1s'", "is not valid"),
        ("5 parsecs", "'5 parsecs'", "unknown unit 'parsecs'"),
        (0, "0.0", "must be finite and > 0"),
    ],
)
def test_duration_rejected(given: str | float, shown: str, why: str) -> None:
    with pytest.raises(UnitError) as raised:
        Duration.from_text(given)
    assert f"duration {shown} " in str(raised.value)
    assert why in str(raised.value)


# -- FrameSize ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "value", "label"),
    [
        ("64", 64, "64B"),
        ("64B", 64, "64B"),
        (" 128 bytes ", 128, "128B"),
        ("1518", 1518, "1518B"),
        ("9000", 9000, "9000B"),
        ("9018", 9018, "9018B"),
        (64, 64, "64B"),
        ("IMIX", "IMIX", "IMIX"),
        ("imix", "IMIX", "IMIX"),
        (" Imix ", "IMIX", "IMIX"),
    ],
)
def test_frame_size_accepted(given: str | int, value: int | str, label: str) -> None:
    frame_size = FrameSize.from_text(given)
    assert frame_size.value == value
    assert frame_size.label == label
    assert str(frame_size) == str(value)
    assert frame_size == FrameSize(value)  # type: ignore[arg-type]
    assert hash(frame_size) == hash(FrameSize(value))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("63", "out of range"),
        ("9019", "out of range"),
        ("64.5", "is not valid"),
        ("jumbo", "is not valid"),
        ("", "is not valid"),
        (63, "out of range"),
    ],
)
def test_frame_size_rejected(given: str | int, why: str) -> None:
    with pytest.raises(ProfileError) as raised:
        FrameSize.from_text(given)
    assert f"frame size {given!r} " in str(raised.value)
    assert why in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_frame_size_constructor_checks_too() -> None:
    assert FrameSize(1518).label == "1518B"
    assert FrameSize(64) != FrameSize(65)
    assert FrameSize(64) != 64
    assert repr(FrameSize("IMIX")) == "FrameSize('IMIX')"
    with pytest.raises(ProfileError, match="frame size 10000 "):
        FrameSize(10000)


# -- enums ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "text", "member"),
    [
        (SearchAlgorithm, "MLR", SearchAlgorithm.MLR),
        (SearchAlgorithm, "bswlv", SearchAlgorithm.BSWLV),
        (BinaryAlgorithm, "Binary", BinaryAlgorithm.BINARY),
        (DutMode, "L2XC", DutMode.L2XC),
        (DutMode, "ip4base", DutMode.IP4BASE),
    ],
)
def test_enum_accepted(kind: type[enum.Enum], text: str, member: enum.Enum) -> None:
    assert _convert(kind)(text) is member


@pytest.mark.parametrize(
    ("kind", "text", "choices"),
    [
        (BinaryAlgorithm, "mlr", "binary, bswlv"),
        (SearchAlgorithm, "", "mlr, binary, bswlv"),
        (DutMode, "l3", "ip4base, l2xc"),
        (IrregularPolicy, "maybe", "fail, warn"),
    ],
)
def test_enum_rejected(kind: type[enum.Enum], text: str, choices: str) -> None:
    with pytest.raises(ValueError, match="is not one of") as raised:
        _convert(kind)(text)
    assert str(raised.value) == f"{text!r} is not one of {choices}"


def test_converters_cover_every_type_with_its_doc() -> None:
    assert set(CONVERTERS) == {
        Rate,
        Duration,
        FrameSize,
        SearchAlgorithm,
        BinaryAlgorithm,
        DutMode,
        TrafficProfile,
        IrregularPolicy,
    }
    for kind in (SearchAlgorithm, BinaryAlgorithm, DutMode, IrregularPolicy):
        assert _convert(kind).__doc__ == kind.__doc__  # Libdoc shows it


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("ethip4-ip4base", "ethip4-ip4base"),
        ("ETHIP6-IP6BASE", "ethip6-ip6base"),
        (" eth-l2bdscale1mmaclrn ", "eth-l2bdscale1mmaclrn"),
        ("ethip4ipsec4tnlsw-ip4base-int-aes256gcm", "ethip4ipsec4tnlsw-ip4base-int-aes256gcm"),
    ],
)
def test_traffic_profile_accepts_any_family_id(text: str, family: str) -> None:
    converted = _convert(TrafficProfile)(text)
    assert isinstance(converted, TrafficProfile)
    assert converted.value == family == get_profile(text).name
    assert converted == TrafficProfile(family) and str(converted) == family


def test_traffic_profile_names_the_known_families() -> None:
    with pytest.raises(
        ValueError, match="test family 'ethip6' is not known: give one of "
    ) as raised:
        _convert(TrafficProfile)("ethip6")
    assert "ethip6-ip6base" in str(raised.value) and "NDRPDR_FAMILIES" in str(raised.value)


def test_traffic_profile_accepts_a_labs_family(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "lab.py").write_text(
        "import dataclasses\n"
        "from ndrpdr.families.kinds.l2.defs import FAMILIES as L2\n"
        "base = L2[0]\n"
        "profile = dataclasses.replace(base.profile, name='eth-l2xclab')\n"
        "setup = dataclasses.replace(base.setup, family='eth-l2xclab')\n"
        "FAMILIES = [dataclasses.replace(base, id='eth-l2xclab', profile=profile, setup=setup)]\n"
    )
    with pytest.raises(ValueError, match="'eth-l2xclab' is not known"):
        _convert(TrafficProfile)("eth-l2xclab")
    monkeypatch.setenv("NDRPDR_FAMILIES", str(tmp_path))
    assert _convert(TrafficProfile)("eth-l2xclab") == TrafficProfile("eth-l2xclab")


def test_traffic_profile_doc_lists_the_builtin_families() -> None:
    doc = TrafficProfile.__doc__ or ""
    rows = [line for line in doc.splitlines() if line.startswith("| ``")]
    assert [row.split("``")[1] for row in rows] == [f.id for f in builtin_families()]
    assert "| ``ethip6-ip6base`` | Ethernet/IPv6, 253 flows per direction" in doc


# -- Robot converts through them ------------------------------------------------------------

_SUITE = """\
*** Settings ***
Library    NdrPdrLibrary


*** Test Cases ***
Percent Of The Maximum With IMIX
    ${trial} =    Send Traffic At Rate For Duration    50%    1s    ethip4-ip4base    IMIX
    Set Test Message    ${trial}[load] ${trial}[duration]

Bit Rate With Family Id And Bytes
    ${trial} =    Send Traffic At Rate For Duration    10Gbps    250ms    eth-l2xcbase    64 bytes
    Set Test Message    ${trial}[load] ${trial}[duration]

Integer Rate One Direction
    ${trial} =    Send Traffic At Rate For Duration    ${250000}    1m 30s
    ...    ethip4udp-ip4base    64B    bidirectional=False
    Set Test Message    ${trial}[load] ${trial}[duration]

Search Arguments
    Find NDR And PDR    ethip4-ip4base    1518    duration_sum=2s    goal_width=0.02
    ...    min_rate=100kpps    max_rate=50%    algorithm=BINARY    max_search_time=2 min
    ${record} =    Get Last Search Record
    VAR    ${s}    ${record}[search]
    Set Test Message    ${s}[min_load_pps] ${s}[max_load_pps] ${s}[algorithm]
    Set Test Message    ${record}[profile][frame_size]    append=True    separator=${SPACE}

Bad Rate
    Send Traffic At Rate For Duration    fast    1s

Bad Duration
    Send Traffic At Rate For Duration    1Mpps    soon

Bad Frame Size
    Send Traffic At Rate For Duration    1Mpps    1s    ethip4-ip4base    63

Bad Profile
    Send Traffic At Rate For Duration    1Mpps    1s    ethip6

Bad Algorithm
    Find Throughput With Binary Search    ethip4-ip4base    64    algorithm=mlr

Percent Above 100
    Send Traffic At Rate For Duration    150%    1s

Rate Above The Maximum
    Send Traffic At Rate For Duration    40Mpps    1s
"""


@pytest.fixture(scope="module")
def robot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where ``_SUITE`` runs (from there, so the default topology comes from the checkout)."""
    return tmp_path_factory.mktemp("argtypes")


@pytest.fixture(scope="module")
def converted(robot_dir: Path) -> dict[str, tuple[str, str]]:
    """(status, message) of every test of ``_SUITE``, run by Robot with the default topology."""
    process, output = run_robot(robot_dir, _SUITE)
    assert process.returncode == 7, process.stdout + process.stderr  # the 7 failing tests
    return {name: (test.status, test.message) for name, test in robot_results(output).items()}


def _numbers(message: str) -> list[float]:
    return [float(word) for word in message.split()]


def test_robot_converts_a_percentage(converted: dict[str, tuple[str, str]]) -> None:
    status, message = converted["Percent Of The Maximum With IMIX"]
    assert status == "PASS", message
    maximum = SimTrafficGenerator(load_topology(SIM), "IMIX").max_load_pps
    load, duration = _numbers(message)
    assert load == pytest.approx(maximum / 2)
    assert duration == 1.0


def test_robot_converts_a_bit_rate(converted: dict[str, tuple[str, str]]) -> None:
    status, message = converted["Bit Rate With Family Id And Bytes"]
    assert status == "PASS", message
    load, duration = _numbers(message)
    assert load == pytest.approx(10e9 / BITS_64B)
    assert duration == 0.25


def test_robot_converts_an_integer_rate(converted: dict[str, tuple[str, str]]) -> None:
    status, message = converted["Integer Rate One Direction"]
    assert status == "PASS", message
    assert _numbers(message) == [250_000.0, 90.0]


def test_robot_converts_search_arguments(converted: dict[str, tuple[str, str]]) -> None:
    status, message = converted["Search Arguments"]
    assert status == "PASS", message
    low, high, algorithm, frame_size = message.split()
    maximum = SimTrafficGenerator(load_topology(SIM), 1518).max_load_pps
    assert float(low) == 100_000.0
    assert float(high) == pytest.approx(maximum / 2)
    assert algorithm == "binary"
    assert frame_size == "1518"


@pytest.mark.parametrize(
    ("test", "argument", "value", "kind", "why"),
    [
        ("Bad Rate", "rate", "fast", "Rate", "rate 'fast' is not valid"),
        ("Bad Duration", "duration", "soon", "Duration", "duration 'soon' is not valid"),
        ("Bad Frame Size", "frame_size", "63", "FrameSize", "frame size '63' is out of range"),
        ("Bad Profile", "profile", "ethip6", "TrafficProfile", "'ethip6' is not known: give one"),
        ("Bad Algorithm", "algorithm", "mlr", "BinaryAlgorithm", "'mlr' is not one of binary"),
        ("Percent Above 100", "rate", "150%", "Rate", "at most 100 %"),
    ],
)
def test_robot_reports_a_bad_argument(
    converted: dict[str, tuple[str, str]],
    test: str,
    argument: str,
    value: str,
    kind: str,
    why: str,
) -> None:
    status, message = converted[test]
    assert status == "FAIL"
    assert f"Argument '{argument}' got value '{value}' that cannot be converted to {kind}" in (
        message
    )
    assert why in message


def test_robot_rate_above_the_maximum(converted: dict[str, tuple[str, str]]) -> None:
    status, message = converted["Rate Above The Maximum"]
    assert status == "FAIL"
    # a known failure: the plain message, no exception name
    assert message == (
        "rate=40Mpps: 40 Mpps is above the traffic generator's maximum for 64B frames; "
        "accepted: a rate up to 29.762 Mpps"
    )


def test_robot_wrote_records_in_the_output_directory(
    converted: dict[str, tuple[str, str]], robot_dir: Path
) -> None:
    assert converted["Search Arguments"][0] == "PASS"
    assert (robot_dir / "Search_Arguments.json").is_file()
    assert not (robot_dir / "Bad_Rate.json").exists()  # no search ran there
