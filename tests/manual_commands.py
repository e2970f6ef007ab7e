"""The shell commands the manual shows, found in its reStructuredText and split into words.

Where they are: the literal blocks of ``README.rst`` and ``docs/*.rst`` (the
indented block after a paragraph ending in ``::``, and ``.. code-block::``
blocks of ``console``, ``bash``, ``sh`` or ``shell``), one command a line, and
the inline literals (````ndrpdr search --no-latency````) that begin with one.

What a line becomes: a ``$`` prompt is dropped, a line ending in ``\\`` goes on
on the next, the words are split as the shell does (quotes, ``#`` comments),
and the line is cut at ``|``, ``&&``, ``||`` and ``;`` into commands. Of each
command, leading ``NAME=value`` settings (kept aside), ``sudo`` and ``env`` go;
what is left is ours when it starts with ``ndrpdr`` (also
``.venv-ndrpdr/bin/ndrpdr``), ``python3 -m ndrpdr``, ``bin/run-suites``,
``robot`` (``python3 -m robot``), ``pabot``, or is a benchmark
(``python3 -m benchmarks.efficiency``, ``python3 benchmarks/heldout.py``: kind
``benchmarks``, the module's name first).
Lines of output in a block start with none of these and are left alone; a
block whose first line is neither one of ours nor a ``$`` prompt is a listing
(a folder tree, a table), not commands.

A synopsis (``ndrpdr validate [--plan] FILE``, ``ndrpdr trend ... -o FILE``)
shows the form of a command, not one to run: a word in ``[...]`` or ``...``
makes it one. Its ``|`` inside brackets is an alternative, not a pipe.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The manual: README and the pages of docs/.
MANUAL = (ROOT / "README.rst", *sorted((ROOT / "docs").glob("*.rst")))

#: The kinds of command that are ours, by the words they start with.
KINDS = {
    ("ndrpdr",): "ndrpdr",
    ("python3", "-m", "ndrpdr"): "ndrpdr",
    ("python", "-m", "ndrpdr"): "ndrpdr",
    ("bin/run-suites",): "run-suites",
    ("robot",): "robot",
    ("python3", "-m", "robot"): "robot",
    ("python", "-m", "robot"): "robot",
    ("pabot",): "pabot",
}
#: Languages of a ``code-block`` that hold shell commands.
SHELL_LANGUAGES = frozenset({"console", "bash", "sh", "shell"})
#: Words that end one command and start the next (pipes, and/or lists, sequences).
SEPARATORS = frozenset({"|", "&&", "||", ";"})
#: An environment setting before a command: ``PYTHONPATH=libraries:.``.
_SETTING = re.compile(r"[A-Za-z_]\w*=")
#: An inline literal (may wrap over lines).
_INLINE = re.compile(r"(?<![`\w])``(?P<text>[^`]+?)``(?![`\w])", re.S)
_CODE_BLOCK = re.compile(r"\s*\.\.\s+(?:code-block|code|sourcecode)::\s*(?P<lang>\S*)\s*$")


@dataclasses.dataclass(frozen=True)
class Command:
    """One of our commands as the manual writes it."""

    file: Path
    line: int  # where it starts (1-based)
    text: str  # the line as written (continuations joined)
    kind: str  # ndrpdr, run-suites, robot, pabot, benchmarks
    args: tuple[str, ...]  # the words after the program (a benchmark's: its module first)
    inline: bool  # an inline literal (a mention), not a line of a literal block
    settings: tuple[str, ...] = ()  # the environment it sets: ``PYTHONPATH=libraries:.``

    @property
    def synopsis(self) -> bool:
        """Whether the command shows a form (``[--plan] FILE``, ``...``), not a command to run."""
        return any("[" in w or "]" in w or "..." in w for w in self.args)

    def where(self) -> str:
        """``docs/cli.rst:12: ndrpdr search ...``: the file, the line and the command."""
        return f"{self.file.relative_to(ROOT)}:{self.line}: {self.text}"


def manual_commands(files: tuple[Path, ...] = MANUAL) -> list[Command]:
    """Every command of ours in ``files``: the literal blocks' lines, then the inline literals."""
    found: list[Command] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for block in _blocks(text):
            first = list(_commands(path, *block[0], inline=False))
            if first or block[0][1].startswith("$ "):  # else a listing, not commands
                found.extend(first)
                for line, words in block[1:]:
                    found.extend(_commands(path, line, words, inline=False))
        for match in _INLINE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.extend(_commands(path, line, " ".join(match["text"].split()), inline=True))
    return found


def literal_blocks(text: str) -> Iterator[tuple[int, list[str]]]:
    """(first line, lines) of each literal block of ``text`` that may hold shell commands:
    after ``::`` or a shell ``code-block`` (other languages' blocks are left out)."""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        directive = _CODE_BLOCK.match(line)
        opens = (directive is not None and directive["lang"] in SHELL_LANGUAGES) or (
            directive is None
            and line.rstrip().endswith("::")
            and not line.lstrip().startswith("..")
        )
        if not opens:
            index += 1
            continue
        indent = len(line) - len(line.lstrip())
        index += 1
        while index < len(lines) and (
            not lines[index].strip() or (directive and lines[index].strip().startswith(":"))
        ):
            index += 1  # blank lines, and a directive's options
        start, body = index, []
        while index < len(lines) and (
            not lines[index].strip() or len(lines[index]) - len(lines[index].lstrip()) > indent
        ):
            body.append(lines[index])
            index += 1
        if body:
            yield start + 1, body


def _blocks(text: str) -> Iterator[list[tuple[int, str]]]:
    """Each literal block as its logical lines, (line, text): ``\\`` continuations joined."""
    for start, body in literal_blocks(text):
        lines: list[tuple[int, str]] = []
        pending: list[str] = []
        first = start
        for offset, raw in enumerate(body):
            line = raw.strip()
            if not pending:
                first = start + offset
            if line.endswith("\\"):
                pending.append(line[:-1].strip())
                continue
            joined = " ".join(part for part in (*pending, line) if part)
            pending = []
            if joined:
                lines.append((first, joined))
        if lines:
            yield lines


def _commands(path: Path, line: int, text: str, *, inline: bool) -> Iterator[Command]:
    """Our commands in one line of shell."""
    text = text[2:] if text.startswith("$ ") else text
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        words = text.split()  # an unbalanced quote: a line of output or prose, split plainly
    for split in _split(words):
        part, settings = split, []
        while part and (_SETTING.match(part[0]) or part[0] in ("sudo", "env")):
            settings += part[:1] if _SETTING.match(part[0]) else []
            part = part[1:]
        if part and part[0].endswith("/bin/ndrpdr"):
            part = ["ndrpdr", *part[1:]]  # the virtual environment's ndrpdr
        found = _kind(part)
        if found is not None:
            kind, args = found
            yield Command(path, line, text, kind, args, inline, tuple(settings))


def _kind(words: list[str]) -> tuple[str, tuple[str, ...]] | None:
    """(kind, the words after the program) of a command of ours; None for another's."""
    for start, kind in KINDS.items():
        if tuple(words[: len(start)]) == start:
            return kind, tuple(words[len(start) :])
    if words[:1] in (["python3"], ["python"]) and len(words) > 1:
        if words[1] == "-m" and words[2:3] and words[2].startswith("benchmarks."):
            return "benchmarks", tuple(words[2:])
        if words[1].startswith("benchmarks/") and words[1].endswith(".py"):
            return "benchmarks", (words[1][: -len(".py")].replace("/", "."), *words[2:])
    return None


def _split(words: list[str]) -> Iterator[list[str]]:
    """The commands of one line: cut at ``|``, ``&&``, ``||``, ``;`` outside ``[...]``."""
    part: list[str] = []
    depth = 0
    for word in words:
        if word in SEPARATORS and depth == 0:
            yield part
            part = []
            continue
        depth += word.count("[") - word.count("]")
        part.append(word)
    yield part
