"""Every generated suite runs on the simulator: CI's selection of rows, names and tags checked.

One ``python3 -m robot suites/`` run choosing by tag the first row of each
suite: the family's smallest frame at its fewest cores (1; 2 for the
scheduler families, whose first core only forwards; a reassembly family's
soak: 1518B), NDRPDR, MRR and soak (60 s of simulated soak). No
topology is given, so 2-node families run on ``sim.yaml`` and 3-node-only
ones on ``sim-3n.yaml`` (their suites' default). Every test of the
selection runs and passes, named and tagged as the family table says, with
the tags added at run time (testbed, threads and cores). One 2-core row
checks the thread tags of more than one core.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from acceptance_helpers import SUITES, index_tests, read_output, run_robot
from robot.result import TestCase as RobotTest

from ndrpdr.families.registry import builtin_families
from ndrpdr.families.table import TestRow, suite_types, suites

#: The first row of each suite, by tag.
SELECTION = (
    "64B AND 1C",
    "78B AND 1C",
    "64B AND 2C AND SCHEDULER",
    "1518B AND 1C AND SOAK AND REASSEMBLY",
)
#: A 2-core row run as well.
TWO_CORES = "64B-2c-eth-l2xcbase-mrr"


def _selected(row: TestRow) -> bool:
    tags = {*row.tags, *row.family.tags, row.test_type.upper()}
    return any(set(selection.split(" AND ")) <= tags for selection in SELECTION)


ROWS = {row.name: row for s in suites(builtin_families()) for row in s.rows if _selected(row)}


@pytest.fixture(scope="module")
def tests(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RobotTest]:
    outputdir = tmp_path_factory.mktemp("generated-suites")
    includes = [arg for tags in SELECTION for arg in ("--include", tags)]
    process = run_robot(
        outputdir, *includes, "--include", "eth-l2xcbase AND 2C AND 64B AND MRR",
        "--variable", "MRR_TRIALS:2", "--variable", "SOAK_TIME:60s", str(SUITES),
        timeout=600,
    )  # fmt: skip
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr
    return index_tests(read_output(outputdir))


def test_every_family_runs_in_every_test_type(tests: dict[str, RobotTest]) -> None:
    assert sorted(tests) == sorted([*ROWS, TWO_CORES])
    # a row per family and type; stateful tput families start at 100B, outside CI's selection
    assert {(r.family.id, r.test_type) for r in ROWS.values()} == {
        (f.id, kind)
        for f in builtin_families()
        for kind in suite_types(f)
        if f.profile.transactions is None or f.profile.transactions.kind == "cps"
    }
    assert len(ROWS) == len({(r.family.id, r.test_type) for r in ROWS.values()})
    failed = {name: test.message for name, test in tests.items() if test.status != "PASS"}
    assert failed == {}


def test_tags_of_the_table_and_of_the_run(tests: dict[str, RobotTest]) -> None:
    for name, row in ROWS.items():
        tags = set(tests[name].tags)
        assert {row.test_type.upper(), *row.tags, *row.family.tags, row.family.id} <= tags, name
        threads = "STHREAD" if row.cores == 1 else "MTHREAD"
        assert {f"{row.cores}T{row.cores}C", threads, "DUT_SIM", "TG_SIM"} <= tags, name
        nodes = 3 if row.family.duts == (2,) else 2
        assert f"{nodes}_NODE_SINGLE_LINK_TOPO" in tags, name
        assert not ({"MTHREAD", "STHREAD"} - {threads}) & tags, name
        assert not ({"1C", "2C"} - {f"{row.cores}C"}) & tags, name
    two = set(tests[TWO_CORES].tags)
    assert {"2C", "2T2C", "MTHREAD", "64B", "MRR"} <= two and "STHREAD" not in two


def test_three_node_families_ran_on_the_three_node_simulator(tests: dict[str, RobotTest]) -> None:
    three = [name for name, row in ROWS.items() if row.family.duts == (2,)]
    assert three  # SRv6, IPsec, the 60k FIB
    for name in three:
        topology = tests[name].parent.metadata["Topology"]
        assert Path(topology).resolve().name == "sim-3n.yaml", name
