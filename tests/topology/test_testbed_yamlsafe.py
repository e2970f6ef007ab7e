"""Safe YAML loading: plain data only, line numbers, limits on hostile input.

"Refused fast" is measured in this process's CPU time, not wall time: a
refusal must not burn CPU, and another run loading the shared cores (CI
beside a benchmark) must not fail the test.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
from pathlib import Path

import pytest

from ndrpdr.errors import NdrPdrError
from ndrpdr.topology import yamlsafe
from ndrpdr.topology.errors import FileFormatError, TopologyError
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.yamlsafe import YamlDocument, dotted, load_yaml, parse_yaml

PARSERS = pytest.mark.parametrize("accelerated", [True, False], ids=["libyaml", "python"])


def _time_limit_s(accelerated: bool) -> float:
    """Bound on refusing hostile input: libyaml (the default) is fast; PyYAML's pure Python
    scanner, the fallback, is about 5x slower and quadratic over 1 KiB of open brackets."""
    return 1.0 if accelerated else 3.0


def _laughs(levels: int = 9) -> str:
    letters = "abcdefghij"
    text = f"{letters[0]}: &{letters[0]} [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for prev, cur in itertools.pairwise(letters[: levels + 1]):
        text += f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]\n"
    return text


def _parse(text: str, accelerated: bool = True) -> YamlDocument:
    return parse_yaml(text, path="t.yaml", accelerated=accelerated)


@PARSERS
def test_plain_data_and_lines(accelerated: bool) -> None:
    text = (
        "# comment\na: 1\nb:\n  c: [x, 2.5, true, null, '7']\n  d:\n    - e: f\nwhen: 2024-01-02\n"
    )
    doc = _parse(text, accelerated)
    assert doc.data == {
        "a": 1,
        "b": {"c": ["x", 2.5, True, None, "7"], "d": [{"e": "f"}]},
        "when": "2024-01-02",
    }
    assert doc.line(("a",)) == 2
    assert doc.line(("b", "c", 3)) == 4
    assert doc.line(("b", "d", 0, "e")) == 6
    assert doc.line(("b", "missing", "deeper")) == 3
    assert doc.line(()) == 2
    assert doc.source(("b", "c", 1)) == "2.5"
    assert doc.source(("b", "c", 0)) is None


@PARSERS
def test_merge_keys(accelerated: bool) -> None:
    text = "base: &base {x: 1, y: 2}\nother:\n  <<: *base\n  y: 3\n"
    doc = _parse(text, accelerated)
    assert doc.data["other"] == {"x": 1, "y": 3}
    assert doc.line(("other", "y")) == 4


@PARSERS
def test_merge_needs_mappings(accelerated: bool) -> None:
    with pytest.raises(FileFormatError, match="merge key '<<' takes a mapping"):
        _parse("a: &a [1]\nb:\n  <<: *a\n", accelerated)


@PARSERS
def test_duplicate_keys_name_both_lines(accelerated: bool) -> None:
    with pytest.raises(FileFormatError) as caught:
        _parse("a: 1\nb:\n  c: 1\n  c: 2\n", accelerated)
    assert str(caught.value) == "t.yaml:4: b.c: duplicate key 'c' (first at line 3)"
    assert (caught.value.line, caught.value.field) == (4, "b.c")


@PARSERS
@pytest.mark.parametrize(
    "value",
    [
        "!!python/object/apply:os.system ['true']",
        "!!python/object/new:os.system ['true']",
        "!!python/name:os.system",
        "!!python/module:os",
        "!!python/tuple [1, 2]",
        "!!binary aGVsbG8=",
        "!!omap [{a: 1}]",
        "!custom thing",
        "!<tag:example.com,2024:thing> x",
    ],
)
def test_object_tags_refused(accelerated: bool, value: str) -> None:
    with pytest.raises(FileFormatError, match="is not allowed"):
        _parse(f"x:\n  y: {value}\n", accelerated)


@PARSERS
def test_tag_on_key_refused(accelerated: bool) -> None:
    with pytest.raises(FileFormatError, match="python/name"):
        _parse("? !!python/name:os.system ''\n: 1\n", accelerated)


@PARSERS
def test_mapping_keys_are_text(accelerated: bool) -> None:
    with pytest.raises(FileFormatError, match="mapping key must be plain text"):
        _parse("? [a, b]\n: 1\n", accelerated)


@PARSERS
def test_billion_laughs_refused_fast(accelerated: bool) -> None:
    started = time.process_time()
    with pytest.raises(FileFormatError, match="billion laughs"):
        _parse(_laughs(), accelerated)
    assert time.process_time() - started < 0.5


@PARSERS
def test_moderate_aliases_allowed(accelerated: bool) -> None:
    doc = _parse(_laughs(levels=2), accelerated)
    assert len(doc.data["c"]) == 10


@PARSERS
def test_deep_nesting_refused(accelerated: bool) -> None:
    started = time.process_time()
    with pytest.raises(FileFormatError, match="nesting deeper than"):
        _parse("a: " + "[" * 2_000 + "]" * 2_000 + "\n", accelerated)
    assert time.process_time() - started < _time_limit_s(accelerated)


@PARSERS
def test_nesting_through_aliases_refused(accelerated: bool) -> None:
    inner = "[" * 30 + "1" + "]" * 30
    text = f"a: &a {inner}\nb: {'[' * 20}*a{']' * 20}\n"
    with pytest.raises(FileFormatError, match="nesting deeper than"):
        _parse(text, accelerated)


@PARSERS
def test_many_nodes_refused_fast(accelerated: bool) -> None:
    text = "a: [" + ", ".join(["1"] * 200_000) + "]\n"  # under 1 MiB
    assert len(text) < yamlsafe.MAX_FILE_BYTES
    started = time.process_time()
    with pytest.raises(FileFormatError, match="YAML nodes"):
        _parse(text, accelerated)
    assert time.process_time() - started < _time_limit_s(accelerated)


def test_recursive_alias_refused() -> None:
    with pytest.raises(FileFormatError, match="alias refers to"):
        _parse("a: &a\n  b: *a\n")


def test_big_file_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("nodes:\n" + "  # padding\n" * (2 * 1024 * 1024 // 12), encoding="utf-8")
    assert path.stat().st_size > 2 * 1024 * 1024 - 100
    started = time.process_time()
    with pytest.raises(TopologyError, match="file too large") as caught:
        load_topology(path)
    assert time.process_time() - started < 0.5
    assert str(caught.value).startswith(f"{path}: ")


def test_big_text_refused() -> None:
    with pytest.raises(FileFormatError, match="file too large"):
        _parse("#" * (yamlsafe.MAX_FILE_BYTES + 1))


def test_big_stream_refused_even_without_size(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)  # st_size 0: only the bounded read can tell

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as stream:
            stream.write(b"#" * (2 * 1024 * 1024))

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        with pytest.raises(FileFormatError, match="file too large"):
            load_yaml(fifo)
    finally:
        writer.join(timeout=5)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TopologyError) as caught:
        load_topology(tmp_path / "nope.yaml")
    assert str(caught.value) == f"{tmp_path / 'nope.yaml'}: no such file"
    assert caught.value.line is None


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(TopologyError, match="is a directory"):
        load_topology(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable(tmp_path: Path) -> None:  # pragma: no cover - tests run as root here
    path = tmp_path / "secret.yaml"
    path.write_text("nodes: {}\n", encoding="utf-8")
    path.chmod(0)
    with pytest.raises(TopologyError, match="permission denied"):
        load_topology(path)


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(FileFormatError) as caught:
        load_yaml(path)
    assert str(caught.value) == f"{path}:2: not UTF-8 text (byte 0xe9)"


def test_utf8_bom_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbfa: caf\xc3\xa9\n")
    assert load_yaml(path).data == {"a": "caf\u00e9"}


@PARSERS
def test_control_characters_refused(accelerated: bool) -> None:
    with pytest.raises(FileFormatError, match="U\\+0001") as caught:
        _parse("a: 1\nb: \x01\n", accelerated)
    assert caught.value.line == 2


@PARSERS
def test_syntax_error_has_line(accelerated: bool) -> None:
    with pytest.raises(FileFormatError, match="YAML syntax error") as caught:
        _parse("a: 1\nb: [1, 2\nc: 3\n", accelerated)
    assert caught.value.line in (2, 3)


@PARSERS
def test_bad_explicit_bool(accelerated: bool) -> None:
    with pytest.raises(FileFormatError, match="'maybe' is not a valid !!bool"):
        _parse("a: !!bool maybe\n", accelerated)


def test_error_type_is_chosen_by_caller() -> None:
    with pytest.raises(TopologyError):
        parse_yaml("a: 1\na: 2\n", path="t.yaml", error=TopologyError)
    with pytest.raises(NdrPdrError):
        parse_yaml("a: 1\na: 2\n", path="t.yaml")


def test_dotted() -> None:
    assert dotted(()) == ""
    assert (
        dotted(("nodes", "DUT1", "options", "extra_args", 2)) == "nodes.DUT1.options.extra_args[2]"
    )
    assert dotted((0, "a")) == "[0].a"


def test_error_message_parts() -> None:
    assert str(FileFormatError("bad", path="f.yaml")) == "f.yaml: bad"
    assert str(FileFormatError("bad", path="f.yaml", line=3)) == "f.yaml:3: bad"
    error = TopologyError("bad", path="f.yaml", line=3, field="nodes.TG")
    assert str(error) == "f.yaml:3: nodes.TG: bad"
    assert (error.path, error.line, error.field, error.problem) == ("f.yaml", 3, "nodes.TG", "bad")
