"""NdrPdrLibrary itself: a silent import, its keyword names, and known failures shown plainly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from library_helpers import SIM, robot_results, run_robot

import ndrpdr
from ndrpdr.errors import NdrPdrError
from NdrPdrLibrary import KeywordError, NdrPdrLibrary, __version__
from NdrPdrLibrary.argtypes import Duration, FrameSize, Rate, TrafficProfile
from NdrPdrLibrary.robotview import CONVERTERS
from robot_runner import LIBRARY_KEYWORDS, run_python

KEYWORDS = set(LIBRARY_KEYWORDS)

#: Imports and instantiates the library with an audit hook on; prints what it saw as JSON.
_AUDIT = """
import json, sys
phase = "before"
seen = {"import": [], "instance": []}
WATCHED = ("open", "os.listdir", "os.scandir", "os.mkdir", "os.remove", "os.rename",
           "socket.connect", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn")
def hook(event, args):
    if phase in seen and event in WATCHED:
        seen[phase].append([event, str(args[0]) if args else ""])
sys.addaudithook(hook)
phase = "import"
import NdrPdrLibrary
phase = "instance"
library = NdrPdrLibrary.NdrPdrLibrary("/nonexistent.yaml")
names = library.get_keyword_names()
phase = "after"
print(json.dumps({"seen": seen, "names": names, "loaded": library.ctx._topology is not None}))
"""


def test_import_and_instance_do_no_io() -> None:
    process = run_python(["-c", _AUDIT], timeout=60)
    assert process.returncode == 0, process.stderr
    report = json.loads(process.stdout)
    assert report["seen"]["instance"] == []  # constructing and listing keywords: no I/O at all
    assert report["loaded"] is False
    imported = [path for _, path in report["seen"]["import"]]
    assert imported, "the audit hook saw nothing: the check is broken"
    # importing reads modules (and may read schemas), never a topology or the given file
    assert not [p for p in imported if p.endswith((".yaml", ".yml")) or "nonexistent" in p]
    assert sorted(report["names"]) == sorted(KEYWORDS)


def test_instance_with_a_missing_file_raises_nothing() -> None:
    library = NdrPdrLibrary("/nonexistent.yaml")
    assert library.ctx.topology_path == "/nonexistent.yaml"
    assert library.ctx.is_set_up is False
    with pytest.raises(NdrPdrError, match=r"/nonexistent\.yaml"):
        _ = library.ctx.topology  # only now


def test_keyword_names() -> None:
    names = NdrPdrLibrary("/nonexistent.yaml").get_keyword_names()
    assert len(names) == len(set(names)) == len(KEYWORDS) == 18
    assert set(names) == KEYWORDS


def test_library_settings() -> None:
    assert NdrPdrLibrary.ROBOT_LIBRARY_SCOPE == "GLOBAL"
    assert NdrPdrLibrary.ROBOT_LIBRARY_CONVERTERS is CONVERTERS
    assert __version__ == NdrPdrLibrary.ROBOT_LIBRARY_VERSION == ndrpdr.__version__
    assert NdrPdrLibrary().ctx.topology_path == "topologies/sim.yaml"


def test_keyword_argument_types() -> None:
    library = NdrPdrLibrary("/nonexistent.yaml")
    types = library.get_keyword_types("Send Traffic At Rate For Duration")
    assert types["rate"] is Rate
    assert types["duration"] is Duration
    # any family id: TrafficProfile's converter asks the family registry
    assert types["profile"] is TrafficProfile
    assert types["frame_size"] is FrameSize
    assert "Set Up Testbed" in library.get_keyword_names()
    assert list(library.get_keyword_tags("Find NDR And PDR")) == ["search"]


def test_known_failure_is_a_keyword_error() -> None:
    library = NdrPdrLibrary(str(SIM))
    with pytest.raises(KeywordError) as raised:
        library.run_keyword("Get Last Search Record", (), {})
    error = raised.value
    assert str(error) == "no search has run yet: call Find NDR And PDR first"
    assert type(error).ROBOT_SUPPRESS_NAME is True
    assert isinstance(error.__cause__, NdrPdrError)
    assert not isinstance(error, NdrPdrError)


def test_known_failure_from_the_testbed_is_a_keyword_error() -> None:
    library = NdrPdrLibrary(str(SIM))
    with pytest.raises(KeywordError) as raised:
        library.run_keyword("Set SSH Password", ("DUT9", "x"), None)
    assert "no node 'DUT9'" in str(raised.value)
    assert str(raised.value) == str(raised.value.__cause__)


def test_other_errors_pass_unchanged() -> None:
    library = NdrPdrLibrary(str(SIM))
    with pytest.raises(TypeError, match="'<' not supported") as raised:
        library.run_keyword("Measure MRR", (), {"trials": "ten"})  # Robot would convert it
    assert not isinstance(raised.value, KeywordError)


def test_measure_mrr_without_trials_names_the_argument() -> None:
    library = NdrPdrLibrary(str(SIM))
    with pytest.raises(KeywordError) as raised:
        library.run_keyword("Measure MRR", (), {"trials": 0})
    assert str(raised.value) == "trials=0: Measure MRR needs a trial; accepted: 1 or more trials"
    assert library.ctx.is_set_up is False  # checked before the testbed is touched


@pytest.mark.parametrize("ratio", [0.0, 1.0, -1e-7])
def test_find_critical_load_names_a_bad_loss_ratio(ratio: float) -> None:
    library = NdrPdrLibrary(str(SIM))
    with pytest.raises(KeywordError) as raised:
        library.run_keyword("Find Critical Load", (), {"loss_ratio": ratio})
    assert str(raised.value).startswith(f"loss_ratio={ratio}: ")
    assert "accepted: a ratio in (0, 1)" in str(raised.value)
    assert library.ctx.is_set_up is False  # checked before the testbed is touched


def test_keywords_run_through_run_keyword() -> None:
    library = NdrPdrLibrary(str(SIM))
    try:
        library.run_keyword("Set Up Testbed", (), {})
        assert library.ctx.is_set_up
        library.run_keyword(
            "Configure DUTs For Traffic", (TrafficProfile("eth-l2xcbase"), FrameSize(64)), {}
        )
        trial = library.run_keyword(
            "Send Traffic At Rate For Duration", (Rate("1Mpps"), Duration(1.0)), {}
        )
        assert trial["load"] == 1e6
        assert trial["duration"] == 1.0
        assert trial["lost"] == 0
        assert trial["forwarded"] == trial["offered"] > 0
        telemetry = library.run_keyword("Show DUT Telemetry", (), {})
        assert "mode=l2xc" in telemetry["DUT1"]["state"]
        library.run_keyword("Stop DUTs", (), {})
        assert library.ctx.is_set_up  # the testbed stays up
    finally:
        library.run_keyword("Tear Down Testbed", (), {})
    assert not library.ctx.is_set_up


_SUITE = """\
*** Settings ***
Library    NdrPdrLibrary    ${TOPOLOGY}


*** Test Cases ***
No Search Yet
    Get Last Search Record

Unknown Node
    VAR    ${password: Secret}    %{NDRPDR_TEST_SECRET}
    Set SSH Password    DUT9    ${password}

Missing Record File
    Read Result Record    ${OUTPUT DIR}/nothing-here.json
"""


def test_robot_shows_the_plain_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NDRPDR_TEST_SECRET", "hush")
    process, output = run_robot(tmp_path, _SUITE, "--variable", f"TOPOLOGY:{SIM}")
    assert process.returncode == 3, process.stdout + process.stderr
    results = robot_results(output)
    assert results["No Search Yet"].message == "no search has run yet: call Find NDR And PDR first"
    unknown = results["Unknown Node"].message
    assert unknown.startswith(f"{SIM}: no node 'DUT9'"), unknown
    assert "KeywordError" not in unknown
    assert "hush" not in output.read_text()  # the secret never reaches the output
    missing = results["Missing Record File"].message
    assert missing.startswith(f"{tmp_path / 'nothing-here.json'}: cannot read the result record")
