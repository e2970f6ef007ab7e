"""The topology schema's errors as plain sentences: the field at fault, what is wrong, a suggestion.

``first_schema_problem`` checks a parsed file against the JSON Schema
(``ndrpdr.topology.schema``) and rewrites the first error in file order: an
unknown field names the known ones and the closest match, a number where
text was meant says how to quote it, and so on.
"""

from __future__ import annotations

import difflib
import functools
from typing import Any

import jsonschema  # type: ignore[import-untyped, unused-ignore]

from ndrpdr.drivers import DriverDescription, descriptions
from ndrpdr.topology.schema import schema_for
from ndrpdr.topology.yamlsafe import FieldPath, YamlDocument


def _validator() -> Any:
    """The validator of the schema for the drivers known now (a plugin's too)."""
    return _validator_for(descriptions())


@functools.lru_cache(maxsize=4)
def _validator_for(known: tuple[DriverDescription, ...]) -> Any:
    return jsonschema.Draft202012Validator(schema_for(known))


def first_schema_problem(doc: YamlDocument) -> tuple[FieldPath, str] | None:
    """The schema's first problem in file order, as (field path, sentence); None: no problem."""
    errors = list(_validator().iter_errors(doc.data))
    if not errors:
        return None
    located = [_schema_error(doc, e) for e in errors]
    return min(located, key=lambda item: (doc.line(item[0]), -len(item[0])))


def _schema_error(doc: YamlDocument, error: Any) -> tuple[FieldPath, str]:
    """(field path, sentence) for one jsonschema error."""
    where: FieldPath = tuple(error.absolute_path)
    kind = error.validator
    value = error.validator_value
    instance = error.instance
    if "propertyNames" in error.schema_path:
        where = (*where, instance)
    if kind == "required":
        missing = next(name for name in value if name not in instance)
        hint = error.schema.get("properties", {}).get(missing, {}).get("enum")
        extra = f" ({', '.join(hint)})" if hint else ""
        return where, f"missing required field {missing!r}{extra}"
    if kind == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        unknown = next(key for key in instance if key not in known)
        return (*where, unknown), _unknown_field(doc, where, unknown, known)
    if "errorMessage" in error.schema and kind in ("pattern", "const"):
        return where, f"{instance!r} {error.schema['errorMessage']}"
    if kind in ("enum", "const"):
        allowed = [a for a in (value if kind == "enum" else [value]) if a is not None]
        return where, f"{instance!r} is not one of: {', '.join(map(str, allowed))}" + suggest(
            instance, [str(a) for a in allowed]
        )
    if kind == "type":
        return where, _type_problem(doc, where, value, instance)
    if kind == "pattern":
        return where, f"{instance!r} does not match {value!r}"
    if kind == "minimum":
        return where, f"must be at least {value}, got {instance!r}"
    if kind == "exclusiveMinimum":
        return where, f"must be greater than {value}, got {instance!r}"
    if kind == "maximum":
        return where, f"must be at most {value}, got {instance!r}"
    if kind == "minLength":
        return where, "must not be empty"
    return where, str(error.message)


def _unknown_field(doc: YamlDocument, where: FieldPath, unknown: str, known: list[str]) -> str:
    known = [k for k in known if k != "kind"]
    parent = doc.data
    for part in where:
        parent = parent[part]
    if where and where[-1] == "access" and unknown == "password":
        return (
            "unknown field 'password': an inline password is only accepted in CSIT's flat "
            "node fields; put the NAME of an environment variable holding it in password_env"
        )
    if where and where[-1] == "options":
        node = doc.data["nodes"][where[1]]
        driver = node.get("driver", "?")
        listing = ", ".join(known)
        return f"unknown option {unknown!r} for driver {driver} (known: {listing})" + suggest(
            unknown, known
        )
    if where and where[-1] == "access":
        kind = parent.get("kind")
        return (
            f"unknown field {unknown!r} for access kind {kind} (known: {', '.join(known)})"
            + suggest(unknown, known)
        )
    if not where:
        return (
            f"unknown top-level field {unknown!r} (a topology has 'metadata' and 'nodes')"
            + suggest(unknown, known)
        )
    return f"unknown field {unknown!r}{suggest(unknown, known)}"


def _type_problem(
    doc: YamlDocument, where: FieldPath, expected: str | list[str], instance: Any
) -> str:
    wanted = [expected] if isinstance(expected, str) else list(expected)
    if instance is None:
        names = " or ".join(_TYPE_NAMES.get(w, w) for w in wanted)
        return f"has no value; expected {names}"
    wanted = [w for w in wanted if w != "null"] or wanted  # null: "not set", said elsewhere
    names = " or ".join(_TYPE_NAMES.get(w, w) for w in wanted)
    source = doc.source(where)
    if "string" in wanted and source is not None and isinstance(instance, int | float):
        read_as = "true/false" if isinstance(instance, bool) else "a number"
        return (
            f"{source!r} was read as {read_as} ({instance!r}), not text; "
            f'write it in quotes: "{source}"'
        )
    return f"expected {names}, got {describe_value(instance)}"


_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "text",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "nothing",
}


def describe_value(value: Any) -> str:
    """A value's kind in words, for messages."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({value!r})"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"text ({value!r})"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def suggest(value: Any, known: list[str]) -> str:
    """`` (did you mean 'x'?)`` when ``value`` is close to one of ``known``, else ""."""
    if not isinstance(value, str):
        return ""
    close = difflib.get_close_matches(value, known, n=1, cutoff=0.6)
    if not close:
        lowered = {k.lower(): k for k in known}
        close = [lowered[value.lower()]] if value.lower() in lowered else []
    return f" (did you mean {close[0]!r}?)" if close else ""
