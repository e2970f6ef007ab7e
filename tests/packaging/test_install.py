"""The package as a user gets it: sdist and wheel built, the wheel installed with its base only.

Built from a copy of the source (pyproject.toml, README.rst, libraries/) as
``python -m build`` does: the sdist, then the wheel from the sdist; so a
file the sdist leaves out is missing from the wheel too. The build tools
(pinned in ``BUILD_TOOLS``) get a virtual environment of their own; the
wheel goes into another one, made without the system's site-packages, with
only its base dependencies: no optional part (``ndrpdr.optionaldeps``).
Every ``--help`` must work there, the simulator must run a search and a
suite, and each command that needs an optional part must say which extra
in one line.

pip takes the packages from the indexes its configuration names, as tox
does when it installs the project (on CI: PyPI; nothing here downloads
anything else). The environments are made once per test run (about 25 s):
the module's tests are one xdist group, so with ``--dist loadgroup`` (CI's
unit run) one worker builds and runs them while the other goes on with
other tests; without it, a lock file makes the workers share one build.
"""

from __future__ import annotations

import email.parser
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple
from xml.etree import ElementTree

import pytest

from example_topologies import RUNNABLE, filled
from ndrpdr.cli.commands import COMMANDS
from ndrpdr.optionaldeps import OPTIONAL_PARTS

pytestmark = pytest.mark.xdist_group("packaging-install")

ROOT = Path(__file__).resolve().parents[2]
#: What builds the sdist and the wheel (setuptools: pyproject.toml's build-system).
BUILD_TOOLS = ("build==1.6.1", "setuptools==84.0.0", "wheel==0.48.0")
#: What the copy of the source holds: what the build reads, and what the suite run uses.
SOURCE = ("pyproject.toml", "README.rst", "libraries", "topologies", "resources", "suites/ip4")
#: Distributions the optional parts come in (never in the base install).
OPTIONAL_DISTRIBUTIONS = {p.package.lower() for p in OPTIONAL_PARTS.values()} | {"psycopg-binary"}
#: This interpreter's pip installing into another environment (``--python``): the new
#: environments are made without pip of their own (``ensurepip`` takes seconds each).
_PIP = (sys.executable, "-m", "pip", "--python")
#: The longest an install or build step may take [s].
STEP_TIMEOUT_S = 240


class Installed(NamedTuple):
    """The build's outputs and the virtual environment the wheel is installed in."""

    source: Path
    sdist: Path
    wheel: Path
    venv: Path
    env: dict[str, str]


def _environment() -> dict[str, str]:
    """This environment without what points Python at this checkout or this venv."""
    drop = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONNOUSERSITE"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("COV_")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_ROOT_USER_ACTION"] = "ignore"
    return env


def _run(
    args: Sequence[str | Path], env: dict[str, str], cwd: Path, timeout: float = STEP_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _step(args: Sequence[str | Path], env: dict[str, str], cwd: Path) -> None:
    """Run a set-up step; fail naming it, with the end of what it said, when it fails."""
    done = _run(args, env, cwd)
    if done.returncode != 0:
        said = (done.stdout + done.stderr).strip().splitlines()[-25:]
        pytest.fail(f"{' '.join(map(str, args))} exited {done.returncode}:\n" + "\n".join(said))


def _copy_source(target: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    for name in SOURCE:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, target / name, ignore=ignore)
        else:
            shutil.copy2(origin, target / name)


def _build_and_install(where: Path) -> None:
    env = _environment()
    source, dist, tools, venv = (where / n for n in ("source", "dist", "tools", "venv"))
    source.mkdir()
    _copy_source(source)
    _step([sys.executable, "-m", "venv", "--without-pip", tools], env, where)
    _step([*_PIP, tools / "bin/python", "install", "-q", *BUILD_TOOLS], env, where)
    # The sdist, then the wheel from it; the build tools are those just installed.
    args = [tools / "bin/python", "-m", "build", "--no-isolation", "--outdir", dist, source]
    _step(args, env, where)
    _step([sys.executable, "-m", "venv", "--without-pip", venv], env, where)
    wheels = sorted(dist.glob("ndrpdr-*.whl"))
    assert len(wheels) == 1, f"the build left {wheels} in {dist}"
    _step([*_PIP, venv / "bin/python", "install", "-q", wheels[0]], env, where)
    (where / "done").touch()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """Built and installed once per test run (the first xdist worker builds, the other waits)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the workers' common base directory
    where = shared / "ndrpdr-install"
    with (shared / "ndrpdr-install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (where / "done").exists():
            shutil.rmtree(where, ignore_errors=True)
            where.mkdir()
            _build_and_install(where)
    dist = where / "dist"
    yield Installed(
        where / "source",
        next(dist.glob("ndrpdr-*.tar.gz")),
        next(dist.glob("ndrpdr-*.whl")),
        where / "venv",
        _environment(),
    )


def _ndrpdr(installed: Installed, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``ndrpdr ARGS`` with the installed command, from an empty directory."""
    cwd = installed.venv.parent / "cwd"
    cwd.mkdir(exist_ok=True)
    return _run([installed.venv / "bin/ndrpdr", *args], installed.env, cwd, timeout=60)


def _python(installed: Installed, *args: str | Path) -> subprocess.CompletedProcess[str]:
    cwd = installed.venv.parent / "cwd"
    cwd.mkdir(exist_ok=True)
    return _run([installed.venv / "bin/python", *args], installed.env, cwd, timeout=60)


#: Prints the names of the distributions installed in the interpreter that runs it (JSON).
_DISTRIBUTIONS = (
    "import importlib.metadata as m, json; "
    "print(json.dumps([d.metadata['Name'] for d in m.distributions()]))"
)


def _package_files() -> set[str]:
    """Every file of the two packages, relative to libraries/ (sources and data)."""
    libraries = ROOT / "libraries"
    return {
        p.relative_to(libraries).as_posix()
        for package in ("ndrpdr", "NdrPdrLibrary")
        for p in (libraries / package).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def _pyproject() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project


def test_the_wheel_holds_both_packages_their_data_and_the_command(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(wheel.read(info).decode())
        entry_points = wheel.read(info.replace("METADATA", "entry_points.txt")).decode()
    files = _package_files()
    assert {"ndrpdr/py.typed", "NdrPdrLibrary/__init__.py"} <= files
    assert {f for f in files if f.endswith(".schema.json")} >= {
        "ndrpdr/results/schemas/result.schema.json",
        "ndrpdr/topology/schemas/topology.schema.json",
    }
    assert sorted(files - names) == [], "files of libraries/ missing from the wheel"
    assert "ndrpdr = ndrpdr.cli.main:main" in entry_points
    base = [r for r in metadata.get_all("Requires-Dist") or [] if "extra ==" not in r]
    assert sorted(base) == sorted(_pyproject()["dependencies"])
    assert {"local", "lab", "store", "all"} <= set(metadata.get_all("Provides-Extra") or [])


def test_the_sdist_holds_the_readme_the_project_and_every_source(installed: Installed) -> None:
    with tarfile.open(installed.sdist) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        names = {n.removeprefix(f"{top}/") for n in sdist.getnames()}
        readme = sdist.extractfile(f"{top}/README.rst")
        assert readme is not None
        assert readme.read() == (ROOT / "README.rst").read_bytes()
    assert {"README.rst", "pyproject.toml", "PKG-INFO"} <= names
    missing = {f"libraries/{f}" for f in _package_files()} - names
    assert sorted(missing) == [], "files of libraries/ missing from the sdist"


def test_the_install_has_the_base_and_no_optional_part(installed: Installed) -> None:
    listed = _python(installed, "-c", _DISTRIBUTIONS)
    assert listed.returncode == 0, listed.stderr
    names = {name.lower().replace("_", "-") for name in json.loads(listed.stdout)}
    base = {r.split("==")[0].lower() for r in _pyproject()["dependencies"]}
    assert base | {"ndrpdr"} <= names
    assert sorted(names & OPTIONAL_DISTRIBUTIONS) == []
    where = _python(installed, "-c", "import ndrpdr, NdrPdrLibrary; print(ndrpdr.__file__)")
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(installed.venv), "not the installed copy"


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_every_help_works_without_the_optional_parts(installed: Installed, command: str) -> None:
    """``ndrpdr --help`` and ``ndrpdr COMMAND --help`` of each command: exit 0, usage, no error."""
    args = [command, "--help"] if command else ["--help"]
    done = _ndrpdr(installed, *args)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith(f"usage: ndrpdr {command}".rstrip())


def test_python_m_ndrpdr_is_the_same_command(installed: Installed) -> None:
    done = _python(installed, "-m", "ndrpdr", "--help")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == _ndrpdr(installed, "--help").stdout


def test_the_simulator_searches_and_validates_on_the_base(installed: Installed) -> None:
    topologies = installed.source / "topologies"
    valid = _ndrpdr(installed, "validate", *(topologies / path.name for path in RUNNABLE))
    assert valid.returncode == 0, valid.stderr
    args = ["--frame-size", "64", "--final-trial-duration", "0.2s", "--duration-sum", "2s"]
    done = _ndrpdr(installed, "search", *args)  # the default topology, outside any checkout
    assert done.returncode == 0, done.stderr
    assert "PDR: lower" in done.stdout


def _readme_suite(readme: str) -> str:
    """The literal block of README's "A first suite" section (its lines, unindented)."""
    block = readme.split("\nA first suite\n", 1)[1].split("::\n\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if line and not line.startswith("    "):
            break
        lines.append(line.removeprefix("    "))
    return "\n".join(lines).strip() + "\n"


def test_readmes_first_suite_passes_from_any_directory(installed: Installed) -> None:
    """README's five-line suite, as a user runs it after ``pip install .``: in a directory of
    its own, no topology file at hand (the library's default is the packaged simulator)."""
    suite_dir = installed.venv.parent / "first-suite"
    suite_dir.mkdir(exist_ok=True)
    readme = (installed.source / "README.rst").read_text(encoding="utf-8")
    (suite_dir / "first.robot").write_text(_readme_suite(readme), encoding="utf-8")
    args = ["-m", "robot", "--console", "none", "--outputdir", "out", "first.robot"]
    done = _run([installed.venv / "bin/python", *args], installed.env, suite_dir, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    test = ElementTree.parse(suite_dir / "out" / "output.xml").getroot().find(".//test")
    assert test is not None and test.get("name") == "64B-1c-ethip4-ip4base-ndrpdr"
    message = test.find("status")
    assert message is not None and message.get("status") == "PASS"
    assert "NDR: lower" in (message.text or "") and "PDR: lower" in (message.text or "")


def test_a_suite_runs_on_the_simulator_with_the_installed_library(installed: Installed) -> None:
    """NdrPdrLibrary and the suites' resource (it imports pabot's PabotLib) on the base."""
    suite = installed.source / "suites/ip4/ethip4-ip4base-mrr.robot"
    output = installed.venv.parent / "robot-output"
    args = ["--outputdir", output, "--console", "none", "--include", "64B AND 1C", suite]
    done = _python(installed, "-m", "robot", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    tests = ElementTree.parse(output / "output.xml").getroot().iter("test")
    assert [t.get("name") for t in tests] == ["64B-1c-ethip4-ip4base-mrr"]
    assert done.stderr == "", done.stderr  # e.g. a library that failed to import


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (("ingest", "{cwd}"), "store"),
        (("trend", "--store", "{cwd}/store.sqlite", "-o", "{cwd}/trend.html"), "store"),
        (("frames", "--profile", "ethip4-ip4base", "--count", "1", "--pcap", "{cwd}/a.pcap"),
         "local"),
        (("search", "--topology", "{csit_example}"), "lab"),
    ],
    ids=["ingest", "trend-store", "frames", "search-ssh-node"],
)  # fmt: skip
def test_a_command_that_needs_an_optional_part_says_which_extra(
    installed: Installed, args: tuple[str, ...], extra: str
) -> None:
    cwd = installed.venv.parent / "cwd"
    cwd.mkdir(exist_ok=True)
    example = filled("csit-2n-example.yaml")  # its placeholders filled in: an SSH lab
    given = [a.format(cwd=cwd, csit_example=example) for a in args]
    done = _ndrpdr(installed, *given)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"ndrpdr {args[0]}: ")
    assert done.stderr.endswith(f": pip install 'ndrpdr[{extra}]'\n")
