"""A driver's options as one typed dataclass: the reader, the JSON Schema and the docs from it.

Each driver declares its ``options`` (the node's ``options:`` mapping in a
topology file) once, as a frozen dataclass whose fields are made with
``option()``: the type comes from the annotation, the default, the limits
and the one-line documentation from ``option()``. From that one
declaration come

* ``read_options``: the node's raw mapping -> an instance, every value
  checked (unknown keys, types, limits, patterns, then the dataclass's own
  cross-field ``problems()``); errors name the field and what is wrong;
* ``options_schema``: the JSON Schema of the mapping (editors, and the
  loader's first check);
* ``option_docs``: one line per option for the manual and ``ndrpdr drivers``.

Supported field types: ``bool``, ``int``, ``float`` (an integer is
accepted), ``str``, ``Literal[...]`` (the choices), ``tuple[str, ...]`` and
``tuple[int, ...]`` (YAML lists), each optionally ``| None`` (null allowed,
meaning "not set").
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
import re
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal, Protocol, TypeVar

#: The key under which ``option()`` keeps its spec in a field's metadata.
_SPEC = "ndrpdr.option"

_T = TypeVar("_T")


@dataclasses.dataclass(frozen=True)
class OptionSpec:
    """What ``option()`` records about a field besides type and default.

    ``minimum`` / ``maximum`` bound numbers (and list items of numbers);
    ``exclusive_minimum`` makes the minimum strict; ``pattern`` is a regular
    expression strings (and string list items) must match in full, ``what``
    says in words what they must be ("an absolute path"); ``min_items`` and
    ``unique`` constrain lists; ``choices`` lists the values a ``str`` or
    ``int`` field may take (as a ``Literal`` annotation does, for choices
    that live in a constant elsewhere).
    """

    doc: str
    minimum: float | None = None
    exclusive_minimum: bool = False
    maximum: float | None = None
    pattern: str | None = None
    what: str | None = None
    min_items: int | None = None
    unique: bool = False
    choices: tuple[Any, ...] | None = None


def option(
    default: _T,
    doc: str,
    *,
    minimum: float | None = None,
    exclusive_minimum: bool = False,
    maximum: float | None = None,
    pattern: str | None = None,
    what: str | None = None,
    min_items: int | None = None,
    unique: bool = False,
    choices: tuple[Any, ...] | None = None,
) -> _T:
    """A dataclass field for an option with ``default`` and a one-line ``doc``."""
    spec = OptionSpec(
        doc, minimum, exclusive_minimum, maximum, pattern, what, min_items, unique, choices
    )
    field: _T = dataclasses.field(default=default, metadata={_SPEC: spec})
    return field


class OptionsClass(Protocol):
    """What an options dataclass may add: cross-field checks."""

    def problems(self) -> Iterator[tuple[str, str]]:
        """(field, what is wrong) for every combination of values that does not hold."""
        ...


@dataclasses.dataclass(frozen=True)
class _Field:
    """One option: name, kind, choices / item kind, whether null is allowed, default, spec."""

    name: str
    kind: str  # bool, int, float, str, choice, list
    item: str | None
    choices: tuple[Any, ...]
    nullable: bool
    default: Any
    spec: OptionSpec


def _kind(annotation: Any) -> tuple[str, str | None, tuple[Any, ...]]:
    if annotation is bool:
        return "bool", None, ()
    if annotation is int:
        return "int", None, ()
    if annotation is float:
        return "float", None, ()
    if annotation is str:
        return "str", None, ()
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return "choice", None, typing.get_args(annotation)
    if origin is tuple:
        args = typing.get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis and args[0] in (str, int):
            return "list", "str" if args[0] is str else "int", ()
    raise TypeError(f"option type {annotation!r} is not supported")


@functools.cache
def _fields(cls: type) -> tuple[_Field, ...]:
    """The options of dataclass ``cls`` in declaration order."""
    hints = typing.get_type_hints(cls)
    found = []
    for field in dataclasses.fields(cls):
        spec = field.metadata.get(_SPEC)
        if not isinstance(spec, OptionSpec):
            raise TypeError(f"{cls.__name__}.{field.name} is not made with option()")
        annotation = hints[field.name]
        nullable = False
        if typing.get_origin(annotation) in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            nullable = len(args) < len(typing.get_args(annotation))
            if len(args) != 1:
                raise TypeError(f"{cls.__name__}.{field.name}: {annotation!r} is not supported")
            annotation = args[0]
        kind, item, choices = _kind(annotation)
        if spec.choices is not None:
            if kind not in ("str", "int"):
                raise TypeError(f"{cls.__name__}.{field.name}: choices need a str or int option")
            kind, choices = "choice", tuple(spec.choices)
        found.append(_Field(field.name, kind, item, choices, nullable, field.default, spec))
    return tuple(found)


def option_names(cls: type) -> tuple[str, ...]:
    """The option keys of ``cls`` in declaration (documentation) order."""
    return tuple(f.name for f in _fields(cls))


# -- reading -------------------------------------------------------------------------

#: Makes the error for (field, what is wrong); the caller names node and file.
ErrorFactory = Callable[[str, str], Exception]


def _number_text(value: float) -> str:
    return f"{value:g}"


def _check_number(field: _Field, value: Any, integer: bool) -> str | None:
    """Why ``value`` is not a valid number for ``field`` (None when it is)."""
    spec = field.spec
    bad_type = isinstance(value, bool) or not isinstance(value, int if integer else (int, float))
    low = spec.minimum
    high = spec.maximum
    relation = []
    if low is not None:
        relation.append(f"{'>' if spec.exclusive_minimum else '>='} {_number_text(low)}")
    if high is not None:
        relation.append(f"<= {_number_text(high)}")
    wanted = ("an integer" if integer else "a finite number") + (
        f" {' and '.join(relation)}" if relation else ""
    )
    if bad_type or not math.isfinite(value):
        return f"{value!r} is not {wanted}"
    too_low = low is not None and (value <= low if spec.exclusive_minimum else value < low)
    if too_low or (high is not None and value > high):
        return f"{value!r} is not {wanted}"
    return None


def _check_string(field: _Field, value: Any) -> str | None:
    spec = field.spec
    what = spec.what or "a non-empty string"
    if not isinstance(value, str) or not value:
        return f"{value!r} is not {what}"
    if spec.pattern is not None and not re.fullmatch(spec.pattern, value):
        return f"{value!r} is not {what}"
    return None


def _check(field: _Field, value: Any) -> tuple[Any, str | None]:
    """(the value converted, why it is wrong or None)."""
    if value is None:
        if field.nullable:
            return None, None
        return None, "has no value (null); leave the option out to take its default"
    if field.kind == "bool":
        return value, None if isinstance(value, bool) else f"{value!r} is not true or false"
    if field.kind == "int":
        return value, _check_number(field, value, integer=True)
    if field.kind == "float":
        problem = _check_number(field, value, integer=False)
        return (value if problem else float(value)), problem
    if field.kind == "str":
        return value, _check_string(field, value)
    if field.kind == "choice":
        ok = value in field.choices and type(value) in {type(c) for c in field.choices}
        listing = ", ".join(map(str, field.choices))
        return value, None if ok else f"{value!r} is not one of {listing}"
    return _check_list(field, value)


def _check_list(field: _Field, value: Any) -> tuple[Any, str | None]:
    spec = field.spec
    items = "strings" if field.item == "str" else "integers"
    if not isinstance(value, (list, tuple)):
        return value, f"{value!r} is not a list of {items}"
    if spec.min_items and len(value) < spec.min_items:
        wanted = "is empty" if not value else f"has fewer than {spec.min_items} items"
        return value, f"{list(value)!r} {wanted}"
    item_field = dataclasses.replace(field, kind=field.item or "str", nullable=False)
    for entry in value:
        _, problem = _check(item_field, entry)
        if problem is not None:
            return value, f"item {problem}"
    if spec.unique and len(set(value)) != len(value):
        return value, f"{list(value)!r} lists an item twice"
    return tuple(value), None


def read_options(cls: type[_T], values: Mapping[str, Any], error: ErrorFactory) -> _T:
    """``values`` (a node's ``options``) as an instance of options dataclass ``cls``.

    Raises ``error(field, detail)`` for the first problem: an unknown key
    (with a suggestion), a wrong type or a value out of its limits, then the
    first of the instance's own ``problems()``.
    """
    fields = {f.name: f for f in _fields(typing.cast(type, cls))}
    for key in sorted(values, key=str):
        if key not in fields:
            known = list(fields)
            close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            listing = ", ".join(known) or "no options"
            raise error(str(key), f"unknown option{hint}; known: {listing}")
    converted: dict[str, Any] = {}
    for name, field in fields.items():
        if name not in values:
            continue
        value, problem = _check(field, values[name])
        if problem is not None:
            raise error(name, problem)
        converted[name] = value
    instance = cls(**converted)
    check = getattr(instance, "problems", None)
    if check is not None:
        for name, problem in check():
            raise error(name, problem)
    return instance


# -- the schema and the docs ----------------------------------------------------------


def _json_type(kind: str) -> str:
    return {"bool": "boolean", "int": "integer", "float": "number", "str": "string"}[kind]


def _value_schema(field: _Field, kind: str) -> dict[str, Any]:
    spec = field.spec
    if kind == "choice":
        return {"enum": list(field.choices)}
    schema: dict[str, Any] = {"type": _json_type(kind)}
    if kind in ("int", "float"):
        if spec.minimum is not None:
            key = "exclusiveMinimum" if spec.exclusive_minimum else "minimum"
            schema[key] = spec.minimum
        if spec.maximum is not None:
            schema["maximum"] = spec.maximum
    if kind == "str":
        schema["minLength"] = 1
        if spec.pattern is not None:
            schema["pattern"] = f"^(?:{spec.pattern})$"
            if spec.what:
                schema["errorMessage"] = f"is not {spec.what}"
    return schema


def default_text(field_default: Any) -> str:
    """A default value as a reader of the docs writes it."""
    if field_default is None:
        return "not set"
    if isinstance(field_default, bool):
        return "true" if field_default else "false"
    if isinstance(field_default, tuple):
        return "[" + ", ".join(map(str, field_default)) + "]"
    if isinstance(field_default, float):
        return _number_text(field_default)
    return str(field_default)


def _field_schema(field: _Field) -> dict[str, Any]:
    if field.kind == "list":
        schema: dict[str, Any] = {
            "type": "array",
            "items": _value_schema(field, field.item or "str"),
        }
        if field.spec.min_items:
            schema["minItems"] = field.spec.min_items
        if field.spec.unique:
            schema["uniqueItems"] = True
    else:
        schema = _value_schema(field, field.kind)
    if field.nullable:
        if "enum" in schema:
            schema["enum"] = [*schema["enum"], None]
        else:
            schema["type"] = [schema["type"], "null"]
    schema["description"] = f"{field.spec.doc} (default {default_text(field.default)})."
    return schema


def options_schema(cls: type, description: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of an ``options:`` mapping for ``cls``."""
    return {
        "type": "object",
        "description": description,
        "additionalProperties": False,
        "properties": {f.name: _field_schema(f) for f in _fields(cls)},
    }


def _type_text(field: _Field) -> str:
    if field.kind == "choice":
        text = " | ".join(map(str, field.choices))
    elif field.kind == "list":
        text = f"list of {'strings' if field.item == 'str' else 'integers'}"
    else:
        text = {"bool": "true/false", "int": "integer", "float": "number", "str": "text"}[
            field.kind
        ]
    spec = field.spec
    low, high = spec.minimum, spec.maximum
    if low is not None and high is not None and not spec.exclusive_minimum:
        return f"{text} {_number_text(low)}..{_number_text(high)}"
    if low is not None:
        return f"{text} {'>' if spec.exclusive_minimum else '>='} {_number_text(low)}"
    if high is not None:
        return f"{text} <= {_number_text(high)}"
    return text


@dataclasses.dataclass(frozen=True)
class OptionDoc:
    """One option as documented: name, type with limits, default, what it does."""

    name: str
    type: str
    default: str
    doc: str


def option_docs(cls: type) -> tuple[OptionDoc, ...]:
    """The documentation of every option of ``cls``."""
    return tuple(
        OptionDoc(f.name, _type_text(f), default_text(f.default), f.spec.doc) for f in _fields(cls)
    )
