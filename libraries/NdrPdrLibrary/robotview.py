"""The keyword argument types as Robot Framework is shown them.

Two things Robot does would make our types read badly, so Robot sees
stand-ins of them instead (built here from ``argtypes``; NdrPdrLibrary
swaps them in at the dynamic library API):

- Libdoc lists an enum's member *names* as its allowed values and shows an
  enum default by its name, while our enums keep Python names
  (``TrafficProfile.ETHIP4_IP4BASE``) that the code and the CLI use. Robot
  sees an enum of the same name whose members are named as users type them
  (``ethip4-ip4base``); its converter returns the real member.
- Robot converts ``Rate | None`` by trying each type in turn and, when all
  fail, says only "cannot be converted to Rate or None", dropping our
  parser's reason. Robot sees one type of the same name and doc instead,
  whose converter also takes ``NONE`` (and an empty value) as None; a bad
  value then fails with the reason, as a plain ``Rate`` argument does.

Checked against Robot Framework 7.5's Libdoc and argument conversion.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from NdrPdrLibrary import argtypes

_Convert = Callable[[Any], object]
#: What Robot takes for None in an optional argument (case-insensitive).
_NONE_TEXTS = ("", "NONE")


def _spelled_enum(kind: type[enum.Enum]) -> type[enum.Enum]:
    """An enum named like ``kind`` whose members are named as users type them (the values)."""
    names = [(str(member.value), str(member.value)) for member in kind]
    spelled = enum.Enum(kind.__name__, names, module=__name__)  # type: ignore[misc]
    spelled.__doc__ = kind.__doc__
    return spelled


def _optional_type(kind: type) -> type:
    """A class named and documented like ``kind``, standing for ``kind | None``."""
    return type(kind.__name__, (), {"__doc__": kind.__doc__, "__module__": __name__})


def _optional(convert: _Convert) -> _Convert:
    """``convert``, except that None, ``NONE`` and an empty value give None."""

    def convert_optional(value: str | int | float | None) -> object:
        if value is None or (isinstance(value, str) and value.strip().upper() in _NONE_TEXTS):
            return None
        return convert(value)

    return convert_optional


#: Each enum of the keywords -> its stand-in named as users type.
_ENUMS: dict[type[enum.Enum], type[enum.Enum]] = {
    kind: _spelled_enum(kind) for kind in argtypes.CONVERTERS if issubclass(kind, enum.Enum)
}
#: Each other type of the keywords -> the stand-in for ``type | None``.
_OPTIONALS: dict[type, type] = {
    kind: _optional_type(kind) for kind in argtypes.CONVERTERS if kind not in _ENUMS
}
#: Each stand-in's member -> the real member (what the keywords get).
_MEMBERS: dict[enum.Enum, enum.Enum] = {
    spelled[str(member.value)]: member for kind, spelled in _ENUMS.items() for member in kind
}
_REAL_TO_SPELLED = {real: spelled for spelled, real in _MEMBERS.items()}


def _converters() -> dict[type, _Convert]:
    converters: dict[type, _Convert] = {}
    for kind, convert in argtypes.CONVERTERS.items():
        assert callable(convert)
        converters[_ENUMS.get(kind, kind)] = convert
        if kind in _OPTIONALS:
            converters[_OPTIONALS[kind]] = _optional(convert)
    return converters


#: ``ROBOT_LIBRARY_CONVERTERS``: the stand-ins' converters (they return the real types).
CONVERTERS: dict[type, _Convert] = _converters()


def robot_type(hint: object) -> object:
    """The type Robot is shown for a keyword argument annotated ``hint``."""
    if hint in _ENUMS:
        return _ENUMS[hint]
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        members = typing.get_args(hint)
        others = [member for member in members if member is not type(None)]
        if len(members) == 2 and len(others) == 1 and others[0] in _OPTIONALS:
            return _OPTIONALS[others[0]]
    return hint


def robot_types(hints: Mapping[str, object] | None) -> dict[str, object] | None:
    """A keyword's argument types as Robot is shown them (``get_keyword_types``)."""
    if hints is None:
        return None
    return {name: robot_type(hint) for name, hint in hints.items()}


def robot_arguments(arguments: list[Any]) -> list[Any]:
    """A keyword's argument spec with enum defaults as Robot is shown them."""
    return [
        (arg[0], _REAL_TO_SPELLED.get(arg[1], arg[1]))
        if isinstance(arg, tuple) and len(arg) == 2 and isinstance(arg[1], enum.Enum)
        else arg
        for arg in arguments
    ]


def real_value(value: object) -> object:
    """The value a keyword gets for ``value``: a default Robot filled in is a stand-in member."""
    if isinstance(value, enum.Enum):
        return _MEMBERS.get(value, value)
    return value
