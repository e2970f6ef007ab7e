"""Shared pieces of the acceptance tests: running robot/libdoc/robocop, reading their output."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from robot.api import ExecutionResult, ResultVisitor
from robot.result import Message, Result, TestCase, TestSuite

import robot_runner
from ndrpdr.families import get_family
from ndrpdr.families.table import TestType, suite

# LIBRARIES and child_env: for the tests that import them from here
from robot_runner import LIBRARIES, ROOT, child_env  # noqa: F401

SUITES = ROOT / "suites"
RESOURCES = ROOT / "resources"
TOPOLOGIES = ROOT / "topologies"
SIM = TOPOLOGIES / "sim.yaml"
ACCEPTANCE = Path(__file__).resolve().parent

PROFILES = ("ethip4-ip4base", "ethip4udp-ip4base", "eth-l2xcbase")
FRAME_SIZES = ("64", "1518", "9000", "IMIX")

#: The keywords NdrPdrLibrary must have, named exactly (acronyms kept).
KEYWORDS = robot_runner.LIBRARY_KEYWORDS

#: Metadata keys whose values are plain numbers [frames per second].
BOUND_KEYS = tuple(
    f"{goal}_{part}" for goal in ("NDR", "PDR") for part in ("LOWER", "UPPER", "CONDITIONAL")
)


def frame_size_tag(frame_size: str) -> str:
    """``64`` -> ``64B``; ``IMIX`` stays ``IMIX`` (as in the suites' tags)."""
    return frame_size if frame_size == "IMIX" else f"{frame_size}B"


def suite_file(family: str, kind: TestType) -> Path:
    """The generated suite of ``family``'s test type ``kind`` (``suites/ip4/...-ndrpdr.robot``)."""
    return SUITES / suite(get_family(family), kind).path


def suite_test_name(frame_size: str, profile: str, kind: str) -> str:
    """``64B-1c-ethip4-ip4base-ndrpdr``: a test name of suites/*.robot."""
    return f"{frame_size_tag(frame_size)}-1c-{profile}-{kind}"


def run_python_module(
    module: str, *args: str, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """``python3 -m MODULE ARGS`` in a child process, from the project root."""
    return robot_runner.run_python(["-m", module, *args], timeout=timeout)


def run_robot(
    outputdir: Path,
    *args: str,
    timeout: float = 120.0,
    env_extra: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python3 -m robot --outputdir OUTPUTDIR ARGS`` from the project root."""
    return robot_runner.run_robot(
        ["--outputdir", str(outputdir), "--console", "dotted", *args],
        timeout=timeout,
        env_extra=env_extra,
    )


def collect_tests(suite: TestSuite) -> list[TestCase]:
    """Every test of ``suite`` and its child suites, in order."""
    tests = list(suite.tests)
    for child in suite.suites:
        tests.extend(collect_tests(child))
    return tests


def index_tests(result: Result) -> dict[str, TestCase]:
    """The run's tests by name (names are unique in the suites checked here)."""
    tests = collect_tests(result.suite)
    by_name = {test.name: test for test in tests}
    assert len(by_name) == len(tests), "test names are not unique"
    return by_name


def read_output(outputdir: Path) -> Result:
    """output.xml of a run, parsed."""
    return ExecutionResult(str(outputdir / "output.xml"))


class _Messages(ResultVisitor):  # type: ignore[misc]
    def __init__(self) -> None:
        self.messages: list[Message] = []

    def visit_message(self, message: Message) -> None:
        self.messages.append(message)


def logged_messages(test: TestCase) -> list[Message]:
    """Every message logged by the keywords of ``test`` (nested ones too)."""
    visitor = _Messages()
    test.visit(visitor)
    return visitor.messages


def log_html_strings(log_file: Path) -> list[str]:
    """The texts (messages, names, docs) that log.html embeds, decompressed.

    log.html keeps them in ``window.output["strings"]``: ``*text`` as it is,
    anything else zlib-compressed and base64-encoded; ``</`` is written as ``\\x3c/``.
    """
    html = log_file.read_text(encoding="utf-8")
    chunks = re.findall(
        r'window\.output\["strings"\] = window\.output\["strings"\]\.concat\((\[.*?\])\);',
        html,
        re.DOTALL,
    )
    assert chunks, f"no strings in {log_file}"
    texts: list[str] = []
    for chunk in chunks:
        for item in json.loads(chunk.replace("\\x3c", "\\u003c")):
            if item.startswith("*"):
                texts.append(item[1:])
            else:
                texts.append(zlib.decompress(base64.b64decode(item)).decode("utf-8"))
    return texts


def plain_float(text: str) -> float:
    """A metadata value that must be a plain number (no unit, no thousands separator)."""
    assert re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", text), f"not a plain number: {text!r}"
    return float(text)


def close(a: float, b: float, *, rel: float = 1e-9, abs_: float = 0.0) -> bool:
    """``a`` and ``b`` equal within ``rel`` (relative) or ``abs_`` (absolute)."""
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_)


def netns_list() -> set[str]:
    """Names of the network namespaces now (``ip netns list``)."""
    out = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=False
    ).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


#: Real-packet runs (tcpreplay, TRex software mode) on a shared machine may be limited by
#: their TG, and a real DUT sharing 2 CPUs with the TG and with other tests' runs may lose
#: heavily in a few trials at a load that passes in others (VPP on af_packet: 3 of 7 trials
#: of a CI run, while the next worker ran its own real tests). Such a result is irregular by
#: the host, not by the code under test, so these runs allow it (with a warning and tags) and
#: ``assert_host_limited_only`` checks that nothing else was irregular.
ALLOW_TG_LIMITED = ("IRREGULAR", "warn")
#: The irregularities the host alone can cause.
HOST_CAUSED = frozenset({"TG_LIMITED", "DUT_FLAPPING"})


def assert_host_limited_only(record: Mapping[str, object], tags: Sequence[str]) -> None:
    """The record's irregularities are at most those the host causes (HOST_CAUSED), and the
    test's tags say so."""
    irregular = record.get("irregular")
    assert isinstance(irregular, list)
    found = {str(item["tag"]) for item in irregular}
    assert found <= HOST_CAUSED, irregular  # a lossy min load or NDR > PDR is a bug here
    if found:
        assert {"IRREGULAR", *found} <= set(tags), tags
    else:
        assert "IRREGULAR" not in tags, tags


def robot_args(*pairs: tuple[str, str]) -> Sequence[str]:
    """``--variable NAME:VALUE`` arguments."""
    args: list[str] = []
    for name, value in pairs:
        args.extend(["--variable", f"{name}:{value}"])
    return args
