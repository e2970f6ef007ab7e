"""The few Robot Framework calls the keywords make: log, console, test message and metadata.

Kept in one place so the components read as plain Python, and so the
calls degrade gracefully outside a test (a suite setup, or plain Python
with Robot not running): then there is no test to set a message on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, MutableMapping
from pathlib import Path

from robot.api import logger
from robot.libraries.BuiltIn import BuiltIn, RobotNotRunningError
from robot.output import LOGGER  # type: ignore[import-untyped]
from robot.output.console import (  # type: ignore[import-untyped]
    DottedConsole,
    NoneConsole,
    QuietConsole,
)

from ndrpdr.console.progress import ConsoleKind

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _variable(name: str) -> object:
    try:
        return BuiltIn().get_variable_value(name)
    except RobotNotRunningError:
        return None


def robot_running() -> bool:
    """True inside a Robot Framework run (not in plain Python or Libdoc)."""
    try:
        return bool(BuiltIn().robot_running)
    except RobotNotRunningError:
        return False


def test_name() -> str | None:
    """The running test's name, None in suite setup / teardown or outside Robot."""
    name = _variable("${TEST NAME}")
    return str(name) if name is not None else None


def suite_name() -> str | None:
    """The running suite's full name (``Throughput.Ethip4-Ip4Base``), None outside Robot."""
    name = _variable("${SUITE NAME}")
    return str(name) if name is not None else None


def suite_source() -> Path | None:
    """The running suite's file or directory, None outside Robot (or for a suite without one)."""
    source = _variable("${SUITE SOURCE}")
    return Path(str(source)) if source else None


def test_tags() -> list[str]:
    """The running test's tags (none outside a test)."""
    tags = _variable("@{TEST TAGS}")
    return [str(tag) for tag in tags] if isinstance(tags, list | tuple) else []


def output_dir() -> Path:
    """Robot's output directory (the working directory outside Robot)."""
    value = _variable("${OUTPUT DIR}")
    return Path(str(value)) if value is not None else Path.cwd()


#: The directory pabot gives its robot processes' outputs, under the run's output directory.
PABOT_RESULTS = "pabot_results"


def final_output_dir() -> Path:
    """Where the run's merged outputs (output.xml, log.html) end up.

    Robot's output directory; under pabot (variable ``${PABOTQUEUEINDEX}`` set) each robot
    process writes into ``<output dir>/pabot_results/[<argument file index>/]<queue index>``
    and pabot merges the outputs into ``<output dir>``: then that directory, the parent of
    the nearest ``pabot_results`` above Robot's output directory.
    """
    directory = output_dir()
    if _variable("${PABOTQUEUEINDEX}") is None:
        return directory
    for parent in directory.parents:
        if parent.name == PABOT_RESULTS:
            return parent.parent
    return directory


def in_shared_output_dir() -> bool:
    """True when other robot processes may write into ``final_output_dir()`` too (pabot)."""
    return final_output_dir() != output_dir()


def log_file() -> Path | None:
    """The log.html being written, None without one (``--log NONE``) or outside Robot."""
    value = _variable("${LOG FILE}")
    if value is None or str(value).upper() == "NONE":
        return None
    return Path(str(value))


def safe_file_name(text: str) -> str:
    """``text`` made safe as a file name: letters, digits, ``.``, ``_``, ``-``."""
    return _UNSAFE.sub("_", text).strip("._") or "search"


def console_kind() -> ConsoleKind:
    """Robot's ``--console`` of this run; VERBOSE outside Robot or for a console of its own.

    Robot has no public way to ask, so this looks at the console logger it
    registered (through ``_robot_private``; an acceptance test runs it for real).
    """
    if not robot_running():
        return ConsoleKind.VERBOSE
    facade = _robot_private(LOGGER, "_Logger__console")
    if facade is None:  # unregistered: nothing is shown
        return ConsoleKind.NONE
    shown = _robot_private(facade, "listener") or facade
    for kind, cls in (
        (ConsoleKind.DOTTED, DottedConsole),
        (ConsoleKind.QUIET, QuietConsole),
        (ConsoleKind.NONE, NoneConsole),
    ):
        if isinstance(shown, cls):
            return kind
    return ConsoleKind.VERBOSE


def console(line: str) -> None:
    """Write one line to the console now (main thread; also outside Robot).

    Nothing with ``robot --console dotted``, ``quiet`` or ``none``: Robot's
    ``logger.console`` writes to the real stdout whatever the console type.
    """
    if console_kind().shows_trials:
        logger.console(line)


def info(text: str, *, html: bool = False) -> None:
    """Log at INFO level (HTML when ``html``)."""
    logger.info(text, html=html)


def warn(text: str) -> None:
    """Log a warning (also listed at the top of log.html)."""
    logger.warn(text)


def set_test_result(
    message: str, metadata: Mapping[str, str], *, replaces: Iterable[str] = ()
) -> bool:
    """Set the running test's message and metadata; False when no test is running.

    Keys in ``replaces`` that ``metadata`` lacks are removed, so a second
    search in one test leaves no number of the first one behind.
    """
    if test_name() is None:
        return False
    builtin = BuiltIn()
    builtin.set_test_message(message)
    stale = set(replaces) - set(metadata)
    if stale:
        _remove_test_metadata(builtin, stale)
    for key, value in metadata.items():
        builtin.set_test_metadata(key, value)
    return True


def _remove_test_metadata(builtin: BuiltIn, keys: set[str]) -> None:
    """Remove metadata keys of the running test (Robot has no keyword for it)."""
    metadata = _robot_private(builtin, "_context", "test", "metadata")
    if not isinstance(metadata, MutableMapping):  # another Robot version: blank them instead
        for key in keys:
            builtin.set_test_metadata(key, "")
        return
    for key in keys:
        metadata.pop(key, None)


#: The Robot Framework version whose private attributes ``_robot_private`` reads.
PRIVATE_API_CHECKED_WITH = "7.5"


def _robot_private(owner: object, *names: str) -> object:
    """``owner.<names[0]>.<names[1]>...``, None where an attribute is missing.

    The one place that reads Robot Framework's private attributes, for what
    its public API does not offer: the console type of the run
    (``robot.output.LOGGER._Logger__console``) and the running test's
    metadata, to remove keys (``BuiltIn()._context.test.metadata``).
    Checked against Robot Framework ``PRIVATE_API_CHECKED_WITH``; the
    callers fall back to something safe when an attribute is missing.
    """
    value: object = owner
    for name in names:
        value = getattr(value, name, None)
        if value is None:
            return None
    return value


def set_suite_result_line(line: str) -> None:
    """Suite metadata named for the running test with ``line`` (its bounds) as value.

    Robot's xunit writer gives a passing test case no message and no
    properties, only its suite's metadata; so this is how an xunit file
    carries the bounds. Nothing outside a test.
    """
    test = test_name()
    if test is not None and line:
        BuiltIn().set_suite_metadata(test, line)


def set_suite_metadata(metadata: Mapping[str, str]) -> None:
    """Set metadata on the running suite (nothing outside Robot)."""
    if not robot_running():
        return
    builtin = BuiltIn()
    for key, value in metadata.items():
        builtin.set_suite_metadata(key, value)


def add_tags(*tags: str) -> None:
    """Tag the running test, or every test of the suite when called from a suite setup."""
    if robot_running() and tags:
        BuiltIn().set_tags(*tags)
