"""examples/Jenkinsfile reads bin/run-suites' exit status as robot documents it.

The Jenkinsfile's ``runOutcome`` is read as written (its ``if (...) return``
lines, the Groovy conditions evaluated for every status 0-255) and compared
with what the status means: robot's return codes (``robot.errors`` and
``robot --help``: 1-250 failed tests, 251 and up no finished run) and
bin/run-suites' own exit codes, read from the script. bin/run-suites itself
is run with a stand-in virtual environment for its own codes and for a
robot status passed through.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from robot import errors as robot_errors
from robot.run import USAGE as ROBOT_USAGE

from standin_venv import standin_venv

ROOT = Path(__file__).resolve().parents[1]
JENKINSFILE = (ROOT / "examples" / "Jenkinsfile").read_text()
RUN_SUITES = ROOT / "bin" / "run-suites"

#: A Groovy condition over ``status``: these tokens and nothing else.
_TOKEN = re.compile(r"\s*(status|\d+|==|!=|>=|<=|<|>|&&|\|\||!|\(|\))")
_PYTHON = {"&&": " and ", "||": " or ", "!": " not "}


def _python(condition: str) -> str:
    """The Groovy ``condition`` as a Python expression (AssertionError on anything else)."""
    tokens, at = [], 0
    while at < len(condition.rstrip()):
        match = _TOKEN.match(condition, at)
        assert match, f"runOutcome: cannot read {condition[at:]!r} in {condition!r}"
        tokens.append(_PYTHON.get(match[1], match[1]))
        at = match.end()
    return " ".join(tokens)


def _run_outcome() -> list[tuple[str | None, str]]:
    """runOutcome's rules in order: (Python condition, or None for the last return; outcome)."""
    body = re.search(r"^String runOutcome\(int status\) \{\n(.*?)\n\}\n", JENKINSFILE, re.M | re.S)
    assert body, "examples/Jenkinsfile has no 'String runOutcome(int status) {...}'"
    rules = re.findall(
        r"^ {4}if \((.+)\) \{\n {8}return '([a-z ]+)'\n {4}\}$|^ {4}return '([a-z ]+)'$",
        body[1],
        re.M,
    )
    assert rules and rules[-1][2], "runOutcome must end with a plain return"
    return [(_python(cond), outcome) if cond else (None, last) for cond, outcome, last in rules]


def outcome_of(status: int) -> str:
    """What the Jenkinsfile makes of ``status``."""
    for condition, outcome in _run_outcome():
        if condition is None or eval(condition, {"__builtins__": {}}, {"status": status}):
            return outcome
    raise AssertionError("unreachable: the last rule always returns")


def _run_suites_own_codes() -> set[int]:
    """The statuses bin/run-suites exits with itself (``exit N``), robot's passed through aside."""
    return {int(n) for n in re.findall(r"\bexit (\d+)\b", RUN_SUITES.read_text())}


def test_robot_documents_the_codes_the_jenkinsfile_names() -> None:
    assert (
        robot_errors.INFO_PRINTED,
        robot_errors.DATA_ERROR,
        robot_errors.STOPPED_BY_USER,
        robot_errors.FRAMEWORK_ERROR,
    ) == (251, 252, 253, 255)
    assert re.search(r"^1-249 +Returned number of tests failed\.$", ROBOT_USAGE, re.M)
    assert re.search(r"^250 +250 or more failures\.$", ROBOT_USAGE, re.M)


def _meaning(status: int) -> str:
    """What ``status`` means: robot's codes (run-suites' own are 252 and 254, no count)."""
    if status == 0:
        return "passed"
    if 1 <= status <= 250:  # that many failed tests, 250 for 250 or more
        return "tests failed"
    return "not run"  # robot's 251-253 and 255, run-suites' 254, whatever else a shell reports


def test_each_status_maps_to_what_it_means() -> None:
    wrong = {s: outcome_of(s) for s in range(256) if outcome_of(s) != _meaning(s)}
    assert not wrong, f"runOutcome's reading of these statuses (status: outcome): {wrong}"


def test_run_suites_own_codes_are_never_a_count_of_failed_tests() -> None:
    own = _run_suites_own_codes()
    assert own == {252, 254}
    assert {outcome_of(code) for code in own} == {"not run"}
    assert 'exit "$status"' in RUN_SUITES.read_text()  # robot's / pabot's, passed through


def test_the_stage_acts_on_the_outcome_of_run_suites_status() -> None:
    stage = JENKINSFILE[JENKINSFILE.index("stage('Run the suites on the testbeds')") :]
    assert re.search(
        r"def status = sh\(returnStatus: true, script: '''.*?bin/run-suites ", stage, re.S
    )
    assert "def outcome = runOutcome(status)" in stage
    assert re.search(r"if \(outcome == 'not run'\) \{\n\s+error\(", stage)
    assert re.search(r"\} else if \(outcome == 'tests failed'\) \{\n\s+unstable\(", stage)
    assert "README" not in JENKINSFILE  # its explanations are in docs/lab.rst


def _run_suites(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "NDRPDR_VENV": str(venv),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "libraries"), str(ROOT)]),
    }
    return subprocess.run(
        [str(RUN_SUITES), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_run_suites_bad_option_is_252(tmp_path: Path) -> None:
    done = _run_suites(standin_venv(tmp_path, "exit 99"), "--pabot", "two")  # python never runs
    assert done.returncode == 252, done.stderr
    assert "run-suites: --pabot two: not a number of processes" in done.stderr


def test_run_suites_failing_set_up_is_254(tmp_path: Path) -> None:
    venv = standin_venv(tmp_path, "exit 3")  # the requirements' pip install fails
    (venv / ".ndrpdr-installed").unlink()
    done = _run_suites(venv, "--outputdir", str(tmp_path / "out"))
    assert done.returncode == 254, done.stdout + done.stderr
    assert "run-suites: setting up the run failed (line " in done.stderr
    assert "exit 3); no suite ran" in done.stderr
    assert outcome_of(done.returncode) == "not run"


def test_run_suites_passes_robots_failed_count_through(tmp_path: Path) -> None:
    suite = tmp_path / "three_fail.robot"
    suite.write_text(
        "*** Test Cases ***\n"
        + "".join(f"Fails {n}\n    Fail    number {n}\n" for n in (1, 2, 3))
        + "Passes\n    No Operation\n"
    )
    venv = standin_venv(tmp_path)
    done = _run_suites(venv, "--outputdir", str(tmp_path / "out"), "--console", "none", str(suite))
    assert done.returncode == 3, done.stdout + done.stderr
    assert outcome_of(done.returncode) == "tests failed"
