"""The base of the keyword components, and a typed ``@keyword`` decorator."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from robotlibcore import keyword as _keyword

from NdrPdrLibrary.context import LibraryContext

_Method = TypeVar("_Method", bound=Callable[..., Any])


def keyword(name: str, *, tags: tuple[str, ...] = ()) -> Callable[[_Method], _Method]:
    """PythonLibCore's ``@keyword`` with the keyword's exact name (acronyms kept) and tags."""
    return cast(Callable[[_Method], _Method], _keyword(name, tags=tags))


def alias(method: _Method, name: str, doc: str, *, tags: tuple[str, ...] = ()) -> _Method:
    """Keyword ``name``: ``method`` under another name and documentation.

    Its arguments, defaults and types are ``method``'s, read by PythonLibCore
    through ``__wrapped__``, so the two keywords cannot drift apart.
    """

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        return method(*args, **kwargs)

    call.__doc__ = doc
    return keyword(name, tags=tags)(cast(_Method, call))


class Component:
    """A group of keywords sharing one ``LibraryContext``."""

    def __init__(self, ctx: LibraryContext) -> None:
        """Keep the context (no I/O)."""
        self.ctx = ctx
