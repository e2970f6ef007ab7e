"""What ``ndrpdr`` imports at start: the command table, then the chosen command only.

``ndrpdr --help`` and ``ndrpdr validate`` must stay fast (issue 25): each
run here is a fresh interpreter (only a new one shows what a command
imports) that lists ``sys.modules`` when the command is done, so a test
fails as soon as someone adds an eager import of a heavy library or of
every command's module.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import ROOT, SIM, TOPOLOGIES

from ndrpdr.cli.commands import COMMANDS, load_command
from ndrpdr.cli.main import build_parser, main

#: Libraries neither ``--help`` nor ``validate`` uses, each 0.1 s or more to import.
HEAVY = ("sqlalchemy", "scapy", "paramiko", "robot")

#: What ``ndrpdr --help`` may import of the project: the entry point and its error handling.
HELP_IMPORTS = {"ndrpdr", "ndrpdr.__main__", "ndrpdr.cli", "ndrpdr.errors", "ndrpdr.interrupts"}

#: Parts of the project ``ndrpdr validate`` has no use for (it reads topology files only).
NOT_FOR_VALIDATE = (
    "NdrPdrLibrary", "ndrpdr.activebed", "ndrpdr.console", "ndrpdr.families", "ndrpdr.labbox",
    "ndrpdr.searchrun", "ndrpdr.store",
)  # fmt: skip

#: Run ``python -m ndrpdr ARGS`` in this interpreter, then write its modules as JSON to OUT.
_PROBE = """
import json, runpy, sys
out, sys.argv = sys.argv[1], ["ndrpdr", *sys.argv[2:]]
try:
    runpy.run_module("ndrpdr", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    status = exc.code
with open(out, "w") as file:
    json.dump({"status": status, "modules": sorted(sys.modules)}, file)
"""


def _imported(tmp_path: Path, *args: str) -> tuple[object, set[str]]:
    """The exit status of ``ndrpdr ARGS`` in a new interpreter, and the modules it imported."""
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(out), *args],
        cwd=ROOT,
        env={"PYTHONPATH": f"{ROOT / 'libraries'}:{ROOT}", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.exists(), done.stderr
    found = json.loads(out.read_text())
    return found["status"], set(found["modules"])


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def _packages(modules: set[str]) -> set[str]:
    """The project's top-level modules and packages among ``modules`` (``ndrpdr.cli``...)."""
    return {
        ".".join(m.split(".")[:2])
        for m in modules
        if m.split(".")[0] in ("ndrpdr", "NdrPdrLibrary")
    }


def _command_modules(modules: set[str]) -> set[str]:
    return modules & {command.module for command in COMMANDS.values()}


def test_help_imports_no_command_and_no_heavy_library(tmp_path: Path) -> None:
    status, modules = _imported(tmp_path, "--help")
    assert status == 0
    assert _heavy(modules) == []
    assert _command_modules(modules) == set()
    assert _packages(modules) <= HELP_IMPORTS


@pytest.mark.parametrize(
    "topology",
    [SIM, TOPOLOGIES / "local-vpp.yaml", TOPOLOGIES / "labbox-3n-vpp.yaml"],
    ids=lambda path: path.name,
)
def test_validate_imports_only_its_command(tmp_path: Path, topology: Path) -> None:
    status, modules = _imported(tmp_path, "validate", "--plan", str(topology))
    assert status == 0
    assert _heavy(modules) == []
    assert _command_modules(modules) == {COMMANDS["validate"].module}
    assert sorted(_packages(modules) & set(NOT_FOR_VALIDATE)) == []


def test_a_command_declares_its_arguments_only_when_chosen() -> None:
    """Before parsing, each command's parser has only -h; choosing one fills it in."""
    parser = build_parser()
    args = parser.parse_args(["validate", "--nic", "X", "a.yaml"])
    assert (args.command, args.nic, args.files) == ("validate", "X", ["a.yaml"])
    # Parsing again with the same parser does not declare --nic twice.
    assert parser.parse_args(["validate", "b.yaml"]).files == ["b.yaml"]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_help_shows_its_options(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``ndrpdr NAME --help`` shows every argument the command's module declares."""
    own = argparse.ArgumentParser(prog=f"ndrpdr {name}")
    load_command(name, own)
    assert callable(own.get_default("run"))
    with pytest.raises(SystemExit) as stop:
        main([name, "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: ndrpdr {name} ")
    for action in own._actions:
        shown = action.option_strings or [action.metavar or action.dest]
        assert all(str(part) in text for part in shown), (name, shown)


def test_top_help_lists_every_command_with_its_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # no line wrapped (textwrap splits at hyphens)
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for name, command in COMMANDS.items():
        assert f"{name} {' '.join(command.help.split())}" in text
