"""The benchmark commands the manual shows run as written: their modules and options exist.

A benchmark (``python3 -m benchmarks.efficiency``, ``python3
benchmarks/heldout.py``; found by ``manual_commands``) must be a module of
``benchmarks/``, and every option it is shown with must be in its ``--help``.
A line of a literal block, which a reader pastes, must also put the checkout's
``libraries`` on ``PYTHONPATH`` (``PYTHONPATH=libraries:. python3 -m
benchmarks.soak``): the benchmarks import ndrpdr from the checkout, which is
not on Python's path otherwise. A failure names the file, the line and the
command.
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache

from manual_commands import ROOT, Command, manual_commands
from robot_runner import child_env

BENCHMARKS = [c for c in manual_commands() if c.kind == "benchmarks"]


@cache
def _help(module: str) -> str:
    """``python3 -m MODULE --help`` from the checkout's root (its usage and options)."""
    done = subprocess.run(
        [sys.executable, "-m", module, "--help"],
        cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"python3 -m {module} --help: {done.stdout}{done.stderr}"
    return done.stdout


def _options(command: Command) -> list[str]:
    return [w.split("=", 1)[0] for w in command.args[1:] if w.startswith("-")]


def _wrong(command: Command) -> str | None:
    module = command.args[0]
    if not (ROOT / f"{module.replace('.', '/')}.py").is_file():
        return f"no module {module}"
    if not command.inline and not any(
        s.startswith("PYTHONPATH=") and "libraries" in s.split("=", 1)[1].split(":")
        for s in command.settings
    ):
        return "does not put libraries on PYTHONPATH (PYTHONPATH=libraries:. python3 -m ...)"
    options = _options(command)
    if not options:
        return None
    if "argparse" not in (ROOT / f"{module.replace('.', '/')}.py").read_text("utf-8"):
        return f"{module} takes no options"
    said = _help(module)
    unknown = [o for o in options if o not in ("-h", "--help") and o not in said.split()]
    return f"{module} has no option {', '.join(unknown)}" if unknown else None


def test_every_benchmark_command_runs_as_written() -> None:
    assert len(BENCHMARKS) >= 10, "the manual's benchmark commands"
    wrong = [f"{c.where()}\n    {e}" for c in BENCHMARKS if (e := _wrong(c)) is not None]
    assert not wrong, "benchmark commands of the manual that do not work:\n" + "\n".join(wrong)


def test_what_the_check_refuses() -> None:
    def bench(*args: str, settings: tuple[str, ...] = ("PYTHONPATH=libraries:.",)) -> Command:
        return Command(ROOT / "README.rst", 1, " ".join(args), "benchmarks", args, False, settings)

    assert _wrong(bench("benchmarks.soak", "--seeds", "2")) is None
    assert "no module" in str(_wrong(bench("benchmarks.nosuch")))
    assert "PYTHONPATH" in str(_wrong(bench("benchmarks.soak", settings=())))
    assert "--no-such" in str(_wrong(bench("benchmarks.soak", "--no-such", "1")))
