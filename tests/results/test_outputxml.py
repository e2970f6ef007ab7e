"""read_outcomes: output.xml of real Robot runs, read without Robot, agrees with robot.api."""

from __future__ import annotations

from pathlib import Path

import pytest
from robot.api import ExecutionResult

from ndrpdr.errors import NdrPdrError
from ndrpdr.outdir.outputxml import OutputXmlError, TestOutcome, read_outcomes
from robot_runner import ROOT, robot_output

SUITES = ROOT / "suites"

_TINY = """\
*** Settings ***
Documentation    Tests of every status, with messages, metadata and tags.


*** Test Cases ***
Passes With Metadata
    [Tags]    mine    64B
    Set Test Metadata    NDR_LOWER    1234567.891
    Set Test Metadata    STATUS    passed
    Set Test Message    first line\\nsecond line

Fails
    [Tags]    broken
    Fail    boom

Is Skipped
    Skip    not on this testbed
"""


@pytest.fixture(scope="module")
def suites_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """NDRPDR and MRR tests (64 B, 9000 B) of the project's suites on the simulator."""
    directory = tmp_path_factory.mktemp("suites")
    _, output = robot_output(
        directory,
        [
            "--include",
            "64B AND 1C",
            "--include",
            "9000B AND 1C",
            "--variable",
            "MRR_TRIALS:2",
            str(SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot"),
            str(SUITES / "l2" / "eth-l2xcbase-mrr.robot"),
        ],
    )
    return output


@pytest.fixture(scope="module")
def tiny_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tiny")
    (directory / "tiny.robot").write_text(_TINY)
    return robot_output(directory, [str(directory / "tiny.robot")])[1]


def _agree(output: Path) -> list[TestOutcome]:
    """read_outcomes(output) checked field by field against robot.api.ExecutionResult."""
    outcomes = read_outcomes(output)
    expected = list(ExecutionResult(str(output)).suite.all_tests)
    assert [o.name for o in outcomes] == [t.name for t in expected]
    for outcome, test in zip(outcomes, expected, strict=True):
        assert outcome.suite == test.parent.full_name
        assert outcome.status == test.status
        assert outcome.message == test.message
        assert outcome.metadata == dict(test.metadata)
        assert sorted(outcome.tags) == sorted(test.tags)
    return outcomes


def test_suites_agree_with_robot(suites_output: Path) -> None:
    outcomes = _agree(suites_output)
    assert [o.name for o in outcomes] == [
        "64B-1c-ethip4-ip4base-ndrpdr",
        "9000B-1c-ethip4-ip4base-ndrpdr",
        "64B-1c-eth-l2xcbase-mrr",
        "9000B-1c-eth-l2xcbase-mrr",
    ]
    assert all(o.status == "PASS" for o in outcomes), [o.message for o in outcomes]
    top = "Ethip4-Ip4Base-Ndrpdr & Eth-L2Xcbase-Mrr"
    assert [o.suite for o in outcomes] == [
        f"{top}.Ethip4-Ip4Base-Ndrpdr",
        f"{top}.Ethip4-Ip4Base-Ndrpdr",
        f"{top}.Eth-L2Xcbase-Mrr",
        f"{top}.Eth-L2Xcbase-Mrr",
    ]


def test_ndrpdr_outcome(suites_output: Path) -> None:
    outcome = read_outcomes(suites_output)[0]
    assert outcome.message.startswith("NDR: lower ")
    ndr_lower, ndr_upper = outcome.number("NDR_LOWER"), outcome.number("NDR_UPPER")
    pdr_lower = outcome.number("PDR_LOWER")
    assert ndr_lower is not None and ndr_upper is not None and pdr_lower is not None
    assert 0 < ndr_lower < ndr_upper
    assert ndr_lower <= pdr_lower
    assert f"lower {ndr_lower / 1e6:.4f} Mpps" in outcome.message
    assert outcome.metadata["FRAME_SIZE"] == "64"
    assert outcome.metadata["STATUS"] == "passed"
    assert {"64b", "ndrpdr", "tg_sim", "dut_sim"} <= {tag.lower() for tag in outcome.tags}


def test_9000b_outcome_has_no_upper_bound(suites_output: Path) -> None:
    outcome = read_outcomes(suites_output)[1]
    assert outcome.name.startswith("9000B")
    assert "NDR_UPPER" not in outcome.metadata
    assert outcome.number("NDR_UPPER") is None
    assert outcome.number("NDR_LOWER") is not None
    assert "upper none" in outcome.message


def test_mrr_outcome(suites_output: Path) -> None:
    outcome = read_outcomes(suites_output)[2]
    average = outcome.number("MRR_AVG")
    assert average is not None and average > 0
    assert outcome.message.startswith("MRR")
    assert outcome.number("NDR_LOWER") is None


def test_tiny_suite_agrees_with_robot(tiny_output: Path) -> None:
    passed, failed, skipped = _agree(tiny_output)
    assert passed.suite == "Tiny"
    assert (passed.status, failed.status, skipped.status) == ("PASS", "FAIL", "SKIP")
    assert passed.message == "first line\nsecond line"
    assert passed.metadata == {"NDR_LOWER": "1234567.891", "STATUS": "passed"}
    assert passed.number("NDR_LOWER") == 1234567.891
    assert passed.number("STATUS") is None  # not a number
    assert passed.number("PDR_LOWER") is None  # missing
    assert set(passed.tags) == {"mine", "64B"}
    assert failed.message == "boom"
    assert failed.metadata == {}
    assert failed.tags == ("broken",)
    assert skipped.message == "not on this testbed"


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "output.xml"
    with pytest.raises(OutputXmlError) as raised:
        read_outcomes(path)
    assert str(raised.value).startswith(f"{path}: cannot read")
    assert "No such file" in str(raised.value)
    assert isinstance(raised.value, NdrPdrError)


def test_directory_instead_of_a_file(tmp_path: Path) -> None:
    with pytest.raises(OutputXmlError, match=f"^{tmp_path}: cannot read"):
        read_outcomes(tmp_path)


@pytest.mark.parametrize("text", ["", "not xml at all", "<robot><suite></robot>", "{}"])
def test_not_xml(tmp_path: Path, text: str) -> None:
    path = tmp_path / "output.xml"
    path.write_text(text)
    with pytest.raises(OutputXmlError) as raised:
        read_outcomes(str(path))
    assert str(raised.value).startswith(f"{path}: not XML")


@pytest.mark.parametrize(
    "text", ["<html><body/></html>", "<testsuite><testcase name='x'/></testsuite>"]
)
def test_xml_that_is_not_robot_output(tmp_path: Path, text: str) -> None:
    path = tmp_path / "junit.xml"
    path.write_text(text)
    with pytest.raises(OutputXmlError) as raised:
        read_outcomes(path)
    assert str(raised.value) == f"{path}: not a Robot Framework output.xml"


def test_robot_output_without_tests(tmp_path: Path) -> None:
    path = tmp_path / "output.xml"
    path.write_text('<robot generator="Robot 7.5"><suite name="Empty"/></robot>')
    assert read_outcomes(path) == []
