"""Every command the manual shows works as written: the manual is tested.

The commands are found by ``manual_commands`` (README.rst and docs/*.rst:
literal blocks and inline literals; its docstring says how a line is split).
A failure names the file, the line and the command.

- ``ndrpdr`` (``python3 -m ndrpdr``): a line of a literal block is parsed by
  the real parser (``ndrpdr.cli.main.build_parser``; nothing runs), so an
  unknown command, an unknown option or a bad value fails. An inline literal
  is a mention (````ndrpdr search --profile````), and a synopsis
  (``ndrpdr validate [--plan] FILE``) a form: of both, the command and every
  option named must exist.
- ``bin/run-suites``, ``robot``, ``pabot``: the options are parsed by Robot's
  (pabot's) own parser, every suite path must be a suite, and the tag
  patterns (``--include``, ``--exclude``) must select a test, without a
  deprecation warning from Robot, among the suites the command runs (all of
  ``suites/`` when it names none). Each distinct line of a literal block is
  then run as written with Robot's ``--dryrun`` (and ``--outputdir`` a
  temporary directory) before its first suite path: ``bin/run-suites``
  itself, which passes the options on to robot or pabot, with its virtual
  environment stood in for by this interpreter (and ``ndrpdr cleanup``, which
  it runs as root, left out: a dry run builds no testbed). CI's run narrows
  the suites to the first suite the command selects a test of (a dry run of
  all of ``suites/`` takes over a minute); the ``slow`` run dry-runs each
  command whole.

Placeholders (``tests/manual_placeholders.py`` says the rule): a path a user
supplies (``lab/dut1.yaml``, ``my-lab.yaml``, ``FILE``, ``$TESTBEDS``) is
passed as written; the dry run reads no topology. Where ``bin/run-suites``
reads the file itself (``--testbeds``) a placeholder is replaced by the
example ``examples/testbeds.dat``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pabot.arguments import parse_args as pabot_parse_args
from robot.api import TestSuiteBuilder
from robot.errors import DataError, Information
from robot.model import TagPatterns
from robot.run import USAGE
from robot.running import TestSuite
from robot.utils.argumentparser import ArgumentParser

from manual_commands import MANUAL, ROOT, Command, manual_commands
from manual_placeholders import has_placeholder_mark, is_placeholder
from ndrpdr.cli.commands import COMMANDS, load_command
from ndrpdr.cli.main import build_parser
from standin_venv import THIS_PYTHON, standin_venv

SUITES = ROOT / "suites"
#: What stands in for a user's value-set file where ``bin/run-suites`` reads it.
EXAMPLE_TESTBEDS = "examples/testbeds.dat"
#: bin/run-suites' own options (each takes a value); the rest go to robot or pabot.
RUN_SUITES_OPTIONS = ("--pabot", "--testbeds")

ALL = manual_commands()


def _robot_parser() -> ArgumentParser:
    return ArgumentParser(USAGE, auto_argumentfile=False, env_options=None)


# --- ndrpdr ------------------------------------------------------------------------------


def _ndrpdr_error(args: tuple[str, ...]) -> str | None:
    """What the real parser says against ``args`` (None when it takes them)."""
    said = io.StringIO()
    with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
        try:
            build_parser().parse_args(list(args))
        except SystemExit as exc:
            return None if exc.code == 0 else said.getvalue().strip().splitlines()[-1]
    return None


@cache
def _ndrpdr_options(name: str) -> frozenset[str]:
    parser = argparse.ArgumentParser(prog=f"ndrpdr {name}")
    load_command(name, parser)
    return frozenset(parser._option_string_actions)


def _options_named(args: tuple[str, ...]) -> Iterator[str]:
    """The options a mention or a synopsis names: ``[--store URL]`` names ``--store``."""
    for word in args:
        option = word.strip("[]")
        if option.startswith("-") and option not in ("-", "--"):
            yield option.split("=", 1)[0]


def _ndrpdr_names_error(args: tuple[str, ...]) -> str | None:
    """Whether the command and the options a mention or a synopsis names exist."""
    words = [w for w in args if w not in ("-v", "--verbose")]
    if not words or words[0].startswith("-"):
        return None if all(w in ("-h", "--help") for w in words) else f"options {words}?"
    name = words[0]
    if name.endswith(":") or has_placeholder_mark(name):
        return None  # a message (``ndrpdr search: error: ...``) or ``ndrpdr COMMAND``
    if name not in COMMANDS:
        return f"no command {name!r} (ndrpdr has {', '.join(COMMANDS)})"
    unknown = [o for o in _options_named(tuple(words[1:])) if o not in _ndrpdr_options(name)]
    return f"ndrpdr {name} has no option {', '.join(unknown)}" if unknown else None


def test_every_ndrpdr_command_parses() -> None:
    commands = [c for c in ALL if c.kind == "ndrpdr"]
    assert len([c for c in commands if not c.inline]) >= 20, "the manual's ndrpdr lines"
    wrong = []
    for command in commands:
        if command.inline or command.synopsis:
            error = _ndrpdr_names_error(command.args)
        else:
            error = _ndrpdr_error(command.args)
        if error is not None:
            wrong.append(f"{command.where()}\n    {error}")
    assert not wrong, "ndrpdr commands of the manual that do not parse:\n" + "\n".join(wrong)


# --- robot, pabot, bin/run-suites: options, suites, tags ---------------------------------


@cache
def _all_suites() -> TestSuite:
    """Every generated suite as Robot reads it (a few seconds)."""
    suite: TestSuite = TestSuiteBuilder().build(str(SUITES))
    return suite


def _split_run_suites(args: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(bin/run-suites' own options, the rest), as bin/run-suites takes them out."""
    own: list[str] = []
    rest: list[str] = []
    words = iter(args)
    for word in words:
        if word in RUN_SUITES_OPTIONS:
            own += [word, next(words, "")]
        elif word.startswith(tuple(f"{o}=" for o in RUN_SUITES_OPTIONS)):
            own.append(word)
        else:
            rest.append(word)
    return own, rest


def _robot_options(command: Command) -> tuple[dict[str, Any], list[str]]:
    """(Robot's options, the data sources) of a run-suites, robot or pabot command."""
    if command.kind == "pabot":
        options, sources, _, _ = pabot_parse_args(list(command.args))
        return options, sources
    args = _split_run_suites(command.args)[1] if command.kind == "run-suites" else command.args
    options, sources = _robot_parser().parse_args(list(args))
    return options, sources


def _suite_at(path: str) -> TestSuite | None:
    """The suite (file or folder) at ``path`` of the repository, among the generated suites."""
    wanted = (ROOT / path).resolve()
    stack = [_all_suites()]
    while stack:
        suite = stack.pop()
        if suite.source is not None and Path(suite.source).resolve() == wanted:
            return suite
        stack.extend(suite.suites)
    return None


def _normal(name: str) -> str:
    """A Robot variable's name as Robot compares it: case, spaces and underscores aside."""
    return name.lower().replace("_", "").replace(" ", "")


@cache
def _variables_used() -> frozenset[str]:
    """The variables (``${NAME}``) the resources, the keyword library and the suites use."""
    files = [
        *(ROOT / "resources").glob("*.resource"),
        *(ROOT / "libraries" / "NdrPdrLibrary").rglob("*.py"),
        *SUITES.rglob("*.robot"),
    ]
    names = {n for f in files for n in re.findall(r"\$\{([^}]+)\}", f.read_text("utf-8"))}
    return frozenset(_normal(n) for n in names)


def _selected(command: Command) -> dict[str, list[str]]:
    """The tests the command runs, by suite file (in Robot's order): raises AssertionError
    naming what is wrong (an option, a variable no suite uses, a path, a tag pattern)."""
    try:
        options, sources = _robot_options(command)
    except DataError as exc:
        raise AssertionError(f"{exc}") from None
    unknown = [
        name
        for name in (str(v).split(":", 1)[0] for v in options.get("variable") or [])
        if _normal(name) not in _variables_used()
    ]
    if unknown:
        raise AssertionError(f"no suite or resource uses {', '.join(unknown)}")
    roots: list[TestSuite] = []
    for source in sources or ["suites"]:
        found = _suite_at(source)
        if found is None and not is_placeholder(source):
            raise AssertionError(f"{source}: not a suite file or folder of suites/")
        roots.extend([found] if found is not None else [])
    if not roots:  # only the user's own suites (``robot first.robot``): nothing of ours to select
        return {}
    include = [str(p) for p in options.get("include") or []]
    exclude = [str(p) for p in options.get("exclude") or []]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        includes, excludes = TagPatterns(include), TagPatterns(exclude)
    if said:
        raise AssertionError(str(said[0].message))
    chosen: dict[str, list[str]] = {}
    for root in roots:
        for test in root.all_tests:
            if (not include or includes.match(test.tags)) and not excludes.match(test.tags):
                chosen.setdefault(str(test.parent.source), []).append(test.name)
    if not chosen:
        raise AssertionError(f"--include {include} --exclude {exclude} select no test")
    return chosen


def _robot_commands(*, blocks_only: bool) -> list[Command]:
    """The run-suites, robot and pabot commands, but mentions with nothing after the program."""
    return [
        c
        for c in ALL
        if c.kind in ("run-suites", "robot", "pabot")
        and not (c.inline and (blocks_only or (c.kind != "run-suites" and not c.args)))
    ]


def test_every_robot_command_has_its_options_suites_and_tests() -> None:
    commands = _robot_commands(blocks_only=False)
    assert {c.kind for c in commands if not c.inline} == {"run-suites", "robot", "pabot"}
    wrong = []
    for command in commands:
        try:
            if command.inline and command.kind != "run-suites" and not _has_sources(command):
                _robot_option_names(command)  # a mention: ``robot --console``
            else:
                _selected(command)
        except AssertionError as exc:
            wrong.append(f"{command.where()}\n    {exc}")
    assert not wrong, "robot commands of the manual that do not work:\n" + "\n".join(wrong)


def _has_sources(command: Command) -> bool:
    try:
        return bool(_robot_options(command)[1])
    except (DataError, Information):  # Information: ``robot --help`` (its text, not an error)
        return False


def _robot_option_names(command: Command) -> None:
    parser = _robot_parser()
    for option in _options_named(command.args):
        with contextlib.suppress(DataError, Information):  # Information: --help, --version
            parser.parse_args([option, "x"])
            continue
        try:
            parser.parse_args([option])
        except Information:  # an option that prints and exits: it exists
            continue
        except DataError as exc:
            raise AssertionError(str(exc)) from None


# --- dry runs ----------------------------------------------------------------------------


def _distinct(commands: list[Command], *, values: bool) -> dict[tuple[str, ...], list[Command]]:
    """The commands by what a dry run of them checks: their words, wherever the manual writes
    them; without ``values``, a ``--variable``'s value left out (a dry run reads none)."""
    distinct: dict[tuple[str, ...], list[Command]] = {}
    for command in commands:
        key = [command.kind]
        after_variable = False
        for word in command.args:
            masked = not values and after_variable and ":" in word
            key.append(word.split(":", 1)[0] + ":*" if masked else word)
            after_variable = word in ("--variable", "-v")
        distinct.setdefault(tuple(key), []).append(command)
    return distinct


def _runs_our_suites(command: Command) -> bool:
    """Whether the command runs a suite of the repository: not only the user's own
    (``bin/run-suites lab-suites``, suites a lab writes: nothing to dry-run here)."""
    sources = _robot_options(command)[1]
    return not sources or not all(is_placeholder(source) for source in sources)


#: The dry runs of CI's run (a variable's value aside) and of the slow one (as written).
_DRY_RUNNABLE = [c for c in _robot_commands(blocks_only=True) if _runs_our_suites(c)]
DRY_RUNS = _distinct(_DRY_RUNNABLE, values=False)
WHOLE_DRY_RUNS = _distinct(_DRY_RUNNABLE, values=True)


def _venv(directory: Path) -> Path:
    """A stand-in for bin/run-suites' .venv-ndrpdr: bin/python runs this interpreter;
    ``python -m ndrpdr cleanup`` (run as root) does nothing, as there is nothing to clean."""
    return standin_venv(directory, f'[ "$*" = "-m ndrpdr cleanup" ] && exit 0\n{THIS_PYTHON}')


def _dry_run_argv(command: Command, outdir: Path, *, whole: bool) -> list[str]:
    """The command's argv with ``--dryrun`` and a temporary output directory before its suites;
    narrowed to its first suite with a selected test unless ``whole``."""
    _, sources = _robot_options(command)
    args = list(command.args)
    if sources:
        assert args[-len(sources) :] == sources, f"{command.where()}: options after the suites"
        args = args[: -len(sources)]
    kept: list[str] = []
    words = iter(args)
    for word in words:
        if word in ("--outputdir", "-d"):
            next(words, None)
        elif word.startswith("--outputdir="):
            continue
        elif word == "--testbeds":
            value = next(words, "")
            kept += [word, EXAMPLE_TESTBEDS if is_placeholder(value) else value]
        else:
            kept.append(word)
    if not whole:
        sources = [next(iter(_selected(command)))]
    extra = ["--dryrun", "--console", "quiet", "--outputdir", str(outdir)]
    program = {
        "run-suites": [str(ROOT / "bin" / "run-suites")],
        "robot": [sys.executable, "-m", "robot"],
        "pabot": [sys.executable, "-m", "pabot.pabot"],
    }[command.kind]
    return [*program, *kept, *extra, *sources]


def _dry_run(commands: list[Command], tmp_path: Path, *, whole: bool) -> None:
    command = commands[0]
    argv = _dry_run_argv(command, tmp_path / "out", whole=whole)
    env = {
        **os.environ,
        "NDRPDR_VENV": str(_venv(tmp_path)),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "libraries"), str(ROOT)]),
        # pabot starts ``robot``: the one installed beside this interpreter
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    done = subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=900 if whole else 120, check=False,
    )  # fmt: skip
    said = done.stdout + done.stderr
    where = "\n".join(c.where() for c in commands)
    assert done.returncode == 0, f"{where}\ndry run: {' '.join(argv)}\n{said}"
    for mark in ("[ ERROR ]", "[ WARN ]"):
        assert mark not in said, f"{where}\ndry run: {' '.join(argv)}\n{said}"
    assert (tmp_path / "out" / "output.xml").is_file(), f"{where}: no output.xml"


def _ids(runs: dict[tuple[str, ...], list[Command]]) -> list[str]:
    return [f"{cs[0].file.name}:{cs[0].line}:{' '.join(key)[:60]}" for key, cs in runs.items()]


@pytest.mark.parametrize("commands", list(DRY_RUNS.values()), ids=_ids(DRY_RUNS))
def test_dry_run(commands: list[Command], tmp_path: Path) -> None:
    """Each distinct command of a literal block, dry-run on its first selected suite."""
    _dry_run(commands, tmp_path, whole=False)


@pytest.mark.slow
@pytest.mark.parametrize("commands", list(WHOLE_DRY_RUNS.values()), ids=_ids(WHOLE_DRY_RUNS))
def test_dry_run_whole(commands: list[Command], tmp_path: Path) -> None:
    """Each distinct command of a literal block, dry-run whole (all of suites/: a minute)."""
    _dry_run(commands, tmp_path, whole=True)


# --- the finder's rules ------------------------------------------------------------------


def test_the_finder_on_a_made_up_page(tmp_path: Path) -> None:
    """Prompts, continuations, settings, sudo, pipes, lists, synopses, code blocks, output."""
    page = tmp_path / "page.rst"
    page.write_text(
        "Run it::\n\n"
        "    $ sudo PYTHONPATH=libraries:. bin/run-suites --include 64B \\\n"
        "        suites/ip4   # a comment\n"
        "    wrote 3 tests\n"
        "    ndrpdr summary results/output.xml | head -3 && ndrpdr suites --check\n\n"
        "Not commands::\n\n"
        "    libraries/   the package\n"
        "    bin/run-suites   the main job\n\n"
        ".. code-block:: console\n"
        "   :caption: pabot\n\n"
        "   pabot --processes 2 suites/\n\n"
        ".. code-block:: yaml\n\n"
        "   robot: not a command\n\n"
        "See ``ndrpdr validate [--plan | --nic MODEL] FILE`` and ``.venv-ndrpdr/bin/ndrpdr\n"
        "search --no-latency``; ``ndrpdr.search`` is a module.\n"
    )
    found = [(c.line, c.kind, c.args, c.inline, c.synopsis) for c in manual_commands((page,))]
    assert found == [
        (3, "run-suites", ("--include", "64B", "suites/ip4"), False, False),
        (6, "ndrpdr", ("summary", "results/output.xml"), False, False),
        (6, "ndrpdr", ("suites", "--check"), False, False),
        (16, "pabot", ("--processes", "2", "suites/"), False, False),
        (22, "ndrpdr", ("validate", "[--plan", "|", "--nic", "MODEL]", "FILE"), True, True),
        (22, "ndrpdr", ("search", "--no-latency"), True, False),
    ]


def test_what_the_checks_take_and_refuse() -> None:
    """The parsers refuse an unknown command, option or value, and a synopsis's options."""
    assert _ndrpdr_error(("search", "--final-trial-duration", "10")) is None
    assert "--no-such" in str(_ndrpdr_error(("search", "--no-such")))
    assert "invalid choice" in str(_ndrpdr_error(("serch",)))
    assert _ndrpdr_names_error(("suites", "[--write", "|", "--check]")) is None
    assert "--wrote" in str(_ndrpdr_names_error(("suites", "[--wrote", "|", "--check]")))
    assert _ndrpdr_names_error(("COMMAND", "--help")) is None

    def robot(*args: str) -> Command:
        return Command(ROOT / "README.rst", 1, " ".join(args), "run-suites", args, False)

    assert "suites/ip4/ethip4-ip4base-mrr.robot" in str(
        next(iter(_selected(robot("--include", "1C", "suites/ip4"))))
    )
    for args, said in (
        (("--no-such",), "--nosuch not recognized"),
        (("--variable", "NO_SUCH:1"), "no suite or resource uses NO_SUCH"),
        (("suites/ip9",), "suites/ip9: not a suite"),
        (("--include", "NO-SUCH-TAG"), "select no test"),
        (("--include", "64BAND1C"), "will change in Robot Framework 8.0"),
    ):
        with pytest.raises(AssertionError, match=said):
            _selected(robot(*args))


def test_the_manual_is_where_the_finder_looks() -> None:
    assert ROOT / "README.rst" in MANUAL
    assert {p.name for p in MANUAL} >= {"getting-started.rst", "running.rst", "cli.rst"}
