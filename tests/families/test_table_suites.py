"""The committed suites are the table's: regenerated in a tmp dir they are the same files.

Also what the generator writes: a 3-node family's suite defaults to the
3-node simulator, long tag lists wrap as robocop formats them, a changed or
left-over generated suite is found, a hand-written suite is left alone.
"""

from __future__ import annotations

import filecmp
import os
from pathlib import Path

import pytest

from ndrpdr.cli.main import main
from ndrpdr.families import get_family
from ndrpdr.families.registry import builtin_families
from ndrpdr.families.suitegen import (
    COMMAND,
    MARKER,
    default_directory,
    render,
    stale_files,
    write_suites,
)
from ndrpdr.families.table import suite, suite_types, suites

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "suites"


def _files(directory: Path) -> set[str]:
    return {str(p.relative_to(directory)) for p in directory.rglob("*.robot")}


def test_committed_suites_are_the_tables(tmp_path: Path) -> None:
    assert default_directory() == COMMITTED
    written = write_suites(tmp_path, builtin_families(), placed=COMMITTED)
    assert set(written) == _files(tmp_path) == {s.path for s in suites(builtin_families())}
    missing = sorted(_files(tmp_path) - _files(COMMITTED))
    extra = sorted(_files(COMMITTED) - _files(tmp_path))
    _, changed, _ = filecmp.cmpfiles(tmp_path, COMMITTED, sorted(_files(tmp_path)), shallow=False)
    stale = [f"{COMMITTED / p}: {why}" for why, ps in (("missing", missing), ("not in the table",
             extra), ("differs from the table", changed)) for p in ps]  # fmt: skip
    assert not stale, f"stale suites (regenerate with `{COMMAND}`):\n" + "\n".join(stale)


def test_check_names_each_stale_file_and_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_suites(tmp_path, builtin_families())
    assert main(["suites", "--check", "--dir", str(tmp_path)]) == 0
    changed = tmp_path / "ip6" / "ethip6-ip6base-ndrpdr.robot"
    changed.write_text(changed.read_text().replace("78B-1c-", "64B-1c-"))
    (tmp_path / "ip4" / "ethip4-ip4base-mrr.robot").unlink()
    left_over = tmp_path / "l2" / "eth-l2old-ndrpdr.robot"
    left_over.write_text(f"*** Settings ***\nDocumentation    {MARKER}\n")
    capsys.readouterr()
    assert main(["suites", "--check", "--dir", str(tmp_path)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        f"{tmp_path / 'ip4' / 'ethip4-ip4base-mrr.robot'}: missing (regenerate: {COMMAND})",
        f"{changed}: differs from the table (regenerate: {COMMAND})",
        f"{left_over}: no family makes it any more (regenerate: {COMMAND})",
    ]
    assert len(stale_files(tmp_path, builtin_families())) == 3


def test_write_replaces_stale_files_and_keeps_hand_written_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_suites(tmp_path, builtin_families())
    (tmp_path / "old").mkdir()
    left_over = tmp_path / "old" / "eth-l2old-ndrpdr.robot"
    left_over.write_text(f"*** Settings ***\nDocumentation    {MARKER}\n")
    mine = tmp_path / "ip4" / "my-own-ndrpdr.robot"
    mine.write_text("*** Settings ***\nDocumentation    a lab's own suite\n")
    changed = tmp_path / "l2" / "eth-l2xcbase-mrr.robot"
    changed.write_text("edited\n")
    assert main(["suites", "--write", "--dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [str(changed), str(left_over)]
    assert not left_over.exists() and not left_over.parent.exists()
    assert mine.read_text().startswith("*** Settings ***\nDocumentation    a lab's own")
    assert stale_files(tmp_path, builtin_families()) == []


def test_three_node_family_defaults_to_the_three_node_simulator() -> None:
    text = render(suite(get_family("ethip6ip6-ip6base-srv6enc1sid"), "ndrpdr"))
    line = next(line for line in text.splitlines() if line.startswith("${TOPOLOGY}"))
    relative = line.split("${CURDIR}/")[1].split()[0]
    # normpath, not resolve: topologies/sim-3n.yaml is a link to the package's copy
    assert (
        Path(os.path.normpath(COMMITTED / "srv6" / relative)) == ROOT / "topologies" / "sim-3n.yaml"
    )
    assert "${TOPOLOGY}" not in render(suite(get_family("ethip4-ip4base"), "ndrpdr"))


@pytest.mark.parametrize("kind", ["ndrpdr", "mrr"])
def test_lines_fit_and_every_tag_is_there(kind: str) -> None:
    for family in builtin_families():
        generated = suite(family, kind)  # type: ignore[arg-type]
        text = render(generated)
        assert max(len(line) for line in text.splitlines()) <= 120, family.id
        settings = text.split("*** Variables ***")[0]
        for tag in generated.tags:
            assert f"    {tag}\n" in settings or f"    {tag}    " in settings, (family.id, tag)
        for row in generated.rows:
            assert f"\n{row.name}\n    [Tags]    {row.tags[0]}    {row.tags[1]}\n" in text


def test_listing_names_every_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["suites"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == sum(len(suite_types(f)) for f in builtin_families())
    assert lines[0].startswith("ip4/ethip4udp-ip4base-ndrpdr.robot: 12 tests (64B-1c-")


def test_a_labs_suites_elsewhere_find_the_resource_and_the_simulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    families = tmp_path / "families"
    families.mkdir()
    (families / "lab.py").write_text(
        "import dataclasses\n"
        "from ndrpdr.families.kinds.srv6.defs import FAMILIES as SRV6\n"
        "base = SRV6[0]\n"
        "profile = dataclasses.replace(base.profile, name='ethip6-ip6lab')\n"
        "setup = dataclasses.replace(base.setup, family='ethip6-ip6lab')\n"
        "lab = dataclasses.replace(base, id='ethip6-ip6lab', profile=profile, setup=setup)\n"
        "FAMILIES = [lab]\n"
    )
    monkeypatch.setenv("NDRPDR_FAMILIES", str(families))
    assert main(["suites", "--write", "--lab"]) == 2
    assert "--lab needs --dir DIR" in capsys.readouterr().err
    out = tmp_path / "lab-suites"
    assert main(["suites", "--write", "--lab", "--dir", str(out)]) == 0
    assert sorted(_files(out)) == [
        "lab/ethip6-ip6lab-mrr.robot",
        "lab/ethip6-ip6lab-ndrpdr.robot",
        "lab/ethip6-ip6lab-soak.robot",
    ]
    text = (out / "lab" / "ethip6-ip6lab-ndrpdr.robot").read_text()
    assert "\n78B-1c-ethip6-ip6lab-ndrpdr\n" in text
    for line in text.splitlines():
        if line.startswith(("Resource", "${TOPOLOGY}")):
            relative = line.split()[-1] if line.startswith("Resource") else line.split()[1]
            target = out / "lab" / relative.replace("${CURDIR}/", "")
            assert target.resolve().is_file(), line
    assert main(["suites", "--check", "--lab", "--dir", str(out)]) == 0
