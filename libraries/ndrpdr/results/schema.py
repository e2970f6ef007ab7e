"""Validation of result records against the shipped JSON Schema."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

import jsonschema

from ndrpdr.errors import NdrPdrError


class RecordError(NdrPdrError):
    """A result record does not follow its schema (the message gives the field path)."""


@functools.cache
def record_schema() -> dict[str, Any]:
    """The result record's JSON Schema (draft 2020-12) as a dict."""
    text = resources.files("ndrpdr.results").joinpath("schemas/result.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate_record(record: Any) -> None:
    """Raise RecordError naming the first field at fault, unless ``record`` is valid."""
    validator = jsonschema.Draft202012Validator(record_schema())
    errors = sorted(validator.iter_errors(record), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = ".".join(str(p) for p in first.absolute_path) or "(record)"
        raise RecordError(f"result record: {where}: {first.message}")
