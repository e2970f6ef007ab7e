"""Safe YAML loading that remembers the line of every field.

Only plain data comes out: mappings, lists, strings, numbers, booleans and
null. No tag can construct an object (``!!python/object`` and every other
non-standard tag is an error), duplicate keys are errors naming both lines,
and hostile input is refused fast:

* files larger than ``MAX_FILE_BYTES`` are refused before parsing;
* nesting deeper than ``MAX_DEPTH`` levels is refused while parsing;
* more than ``MAX_NODES`` nodes, counted while parsing and again after
  expanding aliases, are refused (a "billion laughs" file stops there).

Parsing uses libyaml when PyYAML has it (about 4x faster) and PyYAML's pure
Python parser otherwise; either way the node tree is built here, so the
limits above hold for both. Errors are ``FileFormatError`` (or the subclass
the caller names) with the file, the 1-based line and the field path.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

import yaml  # type: ignore[import-untyped, unused-ignore]
from yaml.composer import Composer  # type: ignore[import-untyped, unused-ignore]
from yaml.constructor import SafeConstructor  # type: ignore[import-untyped, unused-ignore]
from yaml.nodes import MappingNode, ScalarNode, SequenceNode  # type: ignore[import-untyped, unused-ignore]
from yaml.parser import Parser  # type: ignore[import-untyped, unused-ignore]
from yaml.reader import Reader  # type: ignore[import-untyped, unused-ignore]
from yaml.resolver import Resolver  # type: ignore[import-untyped, unused-ignore]
from yaml.scanner import Scanner  # type: ignore[import-untyped, unused-ignore]

from ndrpdr.topology.errors import FileFormatError

try:
    from yaml._yaml import CParser  # type: ignore[import-untyped, unused-ignore]
except ImportError:  # PyYAML built without libyaml
    CParser = None

MAX_FILE_BYTES = 1 << 20
"""Largest file read [bytes] (1 MiB); a topology is a few KiB."""

MAX_DEPTH = 32
"""Deepest nesting of mappings and lists [levels]; a topology needs about 6."""

MAX_NODES = 5_000
"""Most YAML nodes (scalars, mappings, lists) parsed or produced by aliases."""

FieldPath = tuple[str | int, ...]
"""Where a value sits: mapping keys and list indices from the document root."""

_TAG = "tag:yaml.org,2002:"
_STR, _NULL, _BOOL, _INT, _FLOAT = (_TAG + t for t in ("str", "null", "bool", "int", "float"))
_TIMESTAMP, _VALUE, _MERGE = (_TAG + t for t in ("timestamp", "value", "merge"))
_MAP, _SEQ = _TAG + "map", _TAG + "seq"
_SCALAR_TAGS = frozenset({_STR, _NULL, _BOOL, _INT, _FLOAT, _TIMESTAMP, _VALUE, _MERGE})


@dataclasses.dataclass(frozen=True)
class YamlDocument:
    """Plain data from a YAML file, with where each value came from.

    ``lines`` maps a field path to the 1-based line of its key (or of the
    list item, or of the document for ``()``). ``sources`` maps the path of
    each non-string scalar to its text as written, so a message can say
    ``10:20:30:40:50:59 was read as a number``.
    """

    data: Any
    lines: Mapping[FieldPath, int]
    sources: Mapping[FieldPath, str] = dataclasses.field(default_factory=dict)

    def line(self, path: FieldPath) -> int:
        """The line of ``path``, or of its nearest ancestor that has one."""
        for end in range(len(path), -1, -1):
            found = self.lines.get(path[:end])
            if found is not None:
                return found
        return 1

    def source(self, path: FieldPath) -> str | None:
        """The text of a non-string scalar as written in the file (None for strings)."""
        return self.sources.get(path)


def dotted(path: FieldPath) -> str:
    """``("nodes", "DUT1", "options", "extra_args", 2)`` -> ``nodes.DUT1.options.extra_args[2]``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def load_yaml(
    path: str | os.PathLike[str],
    *,
    error: type[FileFormatError] = FileFormatError,
    accelerated: bool = True,
) -> YamlDocument:
    """Read and parse the YAML file ``path`` safely (see the module docstring).

    Messages name ``path`` as given. ``error`` is the exception class to
    raise; ``accelerated=False`` forces the pure Python parser.
    """
    shown = os.fspath(path)
    raw = _read_bytes(shown, error)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        bad = raw[exc.start : exc.start + 1].hex()
        raise error(f"not UTF-8 text (byte 0x{bad})", path=shown, line=line) from None
    return parse_yaml(text, path=shown, error=error, accelerated=accelerated)


def parse_yaml(
    text: str,
    *,
    path: str,
    error: type[FileFormatError] = FileFormatError,
    accelerated: bool = True,
) -> YamlDocument:
    """Parse YAML ``text`` (one document) safely; ``path`` names it in messages."""
    if len(text) > MAX_FILE_BYTES:
        raise error(_too_big(len(text)), path=path)
    loader: Any = None
    try:
        loader = _CLoader(text) if accelerated and _CLoader is not None else _PyLoader(text)
        root = loader.get_single_node()
    except _RefusedError as exc:
        raise error(exc.problem, path=path, line=exc.line) from None
    except yaml.MarkedYAMLError as exc:
        raise error(_syntax_message(exc), path=path, line=_mark_line(exc)) from None
    except yaml.reader.ReaderError as exc:
        line = text[: exc.position].count("\n") + 1
        problem = f"character U+{exc.character:04X} is not allowed in YAML"
        raise error(problem, path=path, line=line) from None
    except yaml.YAMLError as exc:
        raise error(f"not valid YAML: {exc}", path=path, line=1) from None
    finally:
        if loader is not None:
            loader.dispose()
    if root is None:
        raise error("the file is empty (no YAML document)", path=path, line=1)
    return _Converter(path, error).document(root)


# -- reading -------------------------------------------------------------------------


def _read_bytes(shown: str, error: type[FileFormatError]) -> bytes:
    try:
        with open(shown, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > MAX_FILE_BYTES:
                raise error(_too_big(size), path=shown)
            raw = stream.read(MAX_FILE_BYTES + 1)  # st_size is 0 for pipes and /proc files
    except FileNotFoundError:
        raise error("no such file", path=shown) from None
    except IsADirectoryError:
        raise error("is a directory, not a file", path=shown) from None
    except PermissionError:
        raise error("cannot read the file: permission denied", path=shown) from None
    except OSError as exc:
        raise error(f"cannot read the file: {exc.strerror or exc}", path=shown) from None
    if len(raw) > MAX_FILE_BYTES:
        raise error(_too_big(len(raw)), path=shown)
    return raw


def _too_big(size: int) -> str:
    return f"file too large ({size} bytes; the limit is {MAX_FILE_BYTES} bytes)"


def _mark_line(exc: Any) -> int:
    mark = exc.problem_mark or exc.context_mark
    return int(mark.line) + 1 if mark is not None else 1


def _syntax_message(exc: Any) -> str:
    problem = exc.problem or "not valid YAML"
    context = exc.context
    if context and exc.context_mark is not None:
        context = f"{context} at line {exc.context_mark.line + 1}"
    if not context:
        return f"YAML syntax error: {problem}"
    if problem.startswith("but "):  # e.g. "expected a single document ..., but found another"
        return f"YAML syntax error: {context}, {problem}"
    return f"YAML syntax error: {problem} ({context})"


# -- parsing -------------------------------------------------------------------------


class _RefusedError(Exception):
    """A limit was hit while parsing (carries the message and the line)."""

    def __init__(self, problem: str, line: int) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


class _LimitedComposer(Composer):  # type: ignore[misc, unused-ignore]
    """PyYAML's composer (events -> node tree) with depth and node-count limits."""

    def _start(self) -> None:
        Composer.__init__(self)
        self._depth = 0
        self._count = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        self._count += 1
        if self._depth > MAX_DEPTH:
            line = self.peek_event().start_mark.line + 1
            raise _RefusedError(f"nesting deeper than {MAX_DEPTH} levels", line)
        if self._count > MAX_NODES:
            line = self.peek_event().start_mark.line + 1
            raise _RefusedError(
                f"more than {MAX_NODES} YAML nodes (a topology has a few hundred)", line
            )
        try:
            return Composer.compose_node(self, parent, index)
        finally:
            self._depth -= 1


class _PyLoader(Reader, Scanner, Parser, _LimitedComposer, Resolver):  # type: ignore[misc, unused-ignore]
    """Pure Python reader, scanner and parser."""

    def __init__(self, text: str) -> None:
        Reader.__init__(self, text)
        Scanner.__init__(self)
        Parser.__init__(self)
        self._start()
        Resolver.__init__(self)


if CParser is not None:

    class _CLoaderImpl(_LimitedComposer, CParser, Resolver):  # type: ignore[misc, unused-ignore]
        """libyaml's scanner and parser; the node tree is still built by _LimitedComposer."""

        def __init__(self, text: str) -> None:
            CParser.__init__(self, text)
            self._start()
            Resolver.__init__(self)

    _CLoader: type[Any] | None = _CLoaderImpl
else:  # pragma: no cover - depends on how PyYAML was built
    _CLoader = None


# -- node tree -> plain data -----------------------------------------------------------


class _Converter:
    """Turns a node tree into dicts, lists and scalars, recording lines and checking tags."""

    def __init__(self, path: str, error: type[FileFormatError]) -> None:
        self._path = path
        self._error = error
        self._scalars = SafeConstructor()
        self._lines: dict[FieldPath, int] = {}
        self._sources: dict[FieldPath, str] = {}
        self._count = 0
        self._active: set[int] = set()  # ids of the mappings/lists being converted

    def document(self, root: Any) -> YamlDocument:
        self._lines[()] = root.start_mark.line + 1
        data = self._value(root, ())
        return YamlDocument(data, dict(self._lines), dict(self._sources))

    def _fail(self, problem: str, node: Any, where: FieldPath) -> FileFormatError:
        return self._error(
            problem, path=self._path, line=node.start_mark.line + 1, field=dotted(where)
        )

    def _value(self, node: Any, where: FieldPath) -> Any:
        self._count += 1
        if self._count > MAX_NODES:
            raise self._fail(
                f"more than {MAX_NODES} YAML nodes after expanding aliases "
                "(a 'billion laughs' file?)",
                node,
                where,
            )
        if len(where) > MAX_DEPTH:
            raise self._fail(f"nesting deeper than {MAX_DEPTH} levels", node, where)
        if isinstance(node, ScalarNode):
            return self._scalar(node, where)
        if id(node) in self._active:
            raise self._fail("an alias refers to the mapping or list that contains it", node, where)
        self._active.add(id(node))
        try:
            if isinstance(node, MappingNode):
                return self._mapping(node, where)
            return self._sequence(node, where)
        finally:
            self._active.discard(id(node))

    def _check_tag(self, node: Any, allowed: frozenset[str] | str, where: FieldPath) -> None:
        ok = node.tag in allowed if isinstance(allowed, frozenset) else node.tag == allowed
        if not ok:
            shown = node.tag.replace(_TAG, "!!", 1) if node.tag.startswith(_TAG) else node.tag
            raise self._fail(
                f"YAML tag {shown!r} is not allowed (topology files hold plain data only: "
                "mappings, lists, strings, numbers, booleans, null)",
                node,
                where,
            )

    def _scalar(self, node: Any, where: FieldPath) -> Any:
        self._check_tag(node, _SCALAR_TAGS, where)
        tag = node.tag
        if tag in (_STR, _VALUE, _TIMESTAMP, _MERGE):
            return str(node.value)
        self._sources[where] = str(node.value)
        try:
            if tag == _NULL:
                return None
            if tag == _BOOL:
                return bool(self._scalars.construct_yaml_bool(node))
            if tag == _INT:
                return int(self._scalars.construct_yaml_int(node))
            return float(self._scalars.construct_yaml_float(node))
        except (KeyError, ValueError):
            kind = tag.replace(_TAG, "!!", 1)
            raise self._fail(f"{node.value!r} is not a valid {kind}", node, where) from None

    def _sequence(self, node: Any, where: FieldPath) -> list[Any]:
        self._check_tag(node, _SEQ, where)
        items: list[Any] = []
        for index, item in enumerate(node.value):
            at: FieldPath = (*where, index)
            self._lines[at] = item.start_mark.line + 1
            items.append(self._value(item, at))
        return items

    def _mapping(self, node: Any, where: FieldPath) -> dict[str, Any]:
        self._check_tag(node, _MAP, where)
        merged: dict[str, Any] = {}
        own: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag == _MERGE:
                for source in self._merge_sources(value_node, where):
                    for key, value in self._value(source, where).items():
                        merged.setdefault(key, value)
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag == _MERGE:
                continue
            key = self._key(key_node, where)
            line = key_node.start_mark.line + 1
            if key in first_line:
                raise self._fail(
                    f"duplicate key {key!r} (first at line {first_line[key]})",
                    key_node,
                    (*where, key),
                )
            first_line[key] = line
            at: FieldPath = (*where, key)
            self._lines[at] = line
            own[key] = self._value(value_node, at)
        merged = {k: v for k, v in merged.items() if k not in own}
        return {**merged, **own}

    def _key(self, node: Any, where: FieldPath) -> str:
        if not isinstance(node, ScalarNode):
            raise self._fail("a mapping key must be plain text, not a mapping or list", node, where)
        self._check_tag(node, _SCALAR_TAGS, where)
        return str(node.value)

    def _merge_sources(self, node: Any, where: FieldPath) -> list[Any]:
        sources = node.value if isinstance(node, SequenceNode) else [node]
        for source in sources:
            if not isinstance(source, MappingNode):
                raise self._fail(
                    "the merge key '<<' takes a mapping or a list of mappings", source, where
                )
        return list(sources)
