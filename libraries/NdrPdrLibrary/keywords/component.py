"""The base of the keyword components, and a typed ``@keyword`` decorator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from robotlibcore import keyword as _keyword

from NdrPdrLibrary.context import LibraryContext

_Method = TypeVar("_Method", bound=Callable[..., Any])


def keyword(name: str, *, tags: tuple[str, ...] = ()) -> Callable[[_Method], _Method]:
    """PythonLibCore's ``@keyword`` with the keyword's exact name (acronyms kept) and tags."""
    return cast(Callable[[_Method], _Method], _keyword(name, tags=tags))


class Component:
    """A group of keywords sharing one ``LibraryContext``."""

    def __init__(self, ctx: LibraryContext) -> None:
        """Keep the context (no I/O)."""
        self.ctx = ctx
