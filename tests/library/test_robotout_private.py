"""robotout's use of Robot Framework's private attributes: in one function, and working.

The two things Robot's public API does not offer (the run's console type,
removing a test's metadata) are checked in a real Robot run, through a
small library written next to the suite.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import robot
from library_helpers import robot_results, run_robot

from NdrPdrLibrary import robotout


def test_private_attributes_are_read_in_one_function_only() -> None:
    tree = ast.parse(inspect.getsource(robotout))
    private = [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.endswith("__")
    ]
    assert private == []  # no obj._name anywhere
    getattr_in = {
        function.name
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef)
        for call in ast.walk(function)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "getattr"
    }
    assert getattr_in == {"_robot_private"}


def test_private_attributes_were_checked_against_the_robot_in_use() -> None:
    """When Robot is upgraded, check ``_robot_private``'s attributes again, then the version."""
    assert robot.__version__ == robotout.PRIVATE_API_CHECKED_WITH


_HELPER = """\
from NdrPdrLibrary import robotout


def console_kind_of_this_run():
    return robotout.console_kind().name


def set_result_replacing_old_bounds():
    return robotout.set_test_result("new", {"NDR_LOWER": "2"}, replaces=["NDR_UPPER", "NDR_LOWER"])
"""

_SUITE = """\
*** Settings ***
Library    ${CURDIR}/private_helper.py


*** Test Cases ***
Console Kind
    ${kind} =    Console Kind Of This Run
    Set Test Message    ${kind}

Stale Metadata Removed
    Set Test Metadata    NDR_UPPER    1
    Set Test Metadata    NDR_LOWER    1
    Set Test Metadata    OTHER    kept
    ${set} =    Set Result Replacing Old Bounds
    Should Be True    ${set}
"""


def test_robot_private_attributes_work_in_a_real_run(tmp_path: Path) -> None:
    (tmp_path / "private_helper.py").write_text(_HELPER)
    process, output = run_robot(tmp_path, _SUITE)  # with --console dotted
    assert process.returncode == 0, process.stdout + process.stderr
    tests = robot_results(output)
    assert tests["Console Kind"].message == "DOTTED"
    stale = tests["Stale Metadata Removed"]
    assert stale.message == "new"
    assert dict(stale.metadata) == {"NDR_LOWER": "2", "OTHER": "kept"}
