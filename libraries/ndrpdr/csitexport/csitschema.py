"""Validating documents against CSIT's test_case schema, read from a file the user gives.

CSIT's schema (``resources/model_schema/test_case.schema.yaml`` in FD.io
CSIT, JSON Schema draft 2020-12 written in YAML) is not shipped with
ndrpdr: it is CSIT's text, and it is versioned with CSIT. The user points
at a copy (``ndrpdr export --format csit --validate FILE``); its ``$id``
must end with the model version the export writes (1.5.1), else the
validation would check against a model the documents do not claim.

``date-time`` fields are checked as RFC 3339 here (jsonschema checks that
format only with an extra package installed).
"""

from __future__ import annotations

import datetime
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema

from ndrpdr.csitexport.csitmodel import CSIT_MODEL_VERSION
from ndrpdr.errors import NdrPdrError
from ndrpdr.topology.errors import FileFormatError
from ndrpdr.topology.yamlsafe import parse_yaml

#: Where the schema is in CSIT's repository.
CSIT_SCHEMA_PATH = "resources/model_schema/test_case.schema.yaml"

_RFC3339 = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


class CsitSchemaError(NdrPdrError):
    """CSIT's schema file is unreadable, not a schema, or of another model version."""


def is_rfc3339(text: object) -> bool:
    """Whether ``text`` is an RFC 3339 date-time (non-strings pass, as JSON Schema says)."""
    if not isinstance(text, str):
        return True
    match = _RFC3339.match(text)
    if not match:
        return False
    try:
        datetime.datetime.strptime(f"{match[1]}T{match[2]}", "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return True


def schema_from_text(text: str, source: str) -> dict[str, Any]:
    """The schema in ``text`` (YAML or JSON) read from ``source``; checked for version 1.5.1.

    Raises CsitSchemaError naming ``source`` when it is not a schema, or
    when its ``$id`` does not end with the model version.
    """
    try:
        schema = parse_yaml(text, path=source).data  # safe: plain data only, limits on size
    except FileFormatError as exc:
        raise CsitSchemaError(str(exc)) from exc
    if not isinstance(schema, dict):
        raise CsitSchemaError(f"{source}: not a JSON Schema (no mapping at the top)")
    schema_id = str(schema.get("$id", ""))
    if not schema_id.rstrip("/").endswith(f"/{CSIT_MODEL_VERSION}"):
        raise CsitSchemaError(
            f"{source}: $id {schema_id!r} is not CSIT's test_case model {CSIT_MODEL_VERSION}"
            f" (the export writes {CSIT_MODEL_VERSION}; take {CSIT_SCHEMA_PATH} from a CSIT"
            " revision of that model version)"
        )
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise CsitSchemaError(f"{source}: not a valid JSON Schema: {exc.message}") from exc
    plain: dict[str, Any] = json.loads(json.dumps(schema))  # JSON types only, as JSON Schema wants
    return plain


def load_csit_schema(path: str | os.PathLike[str]) -> dict[str, Any]:
    """CSIT's test_case schema from the file ``path`` (see ``schema_from_text``)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CsitSchemaError(f"{os.fspath(path)}: cannot read: {exc.strerror}") from exc
    return schema_from_text(text, os.fspath(path))


class CsitValidator:
    """Checks documents against one copy of CSIT's schema."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        checker = jsonschema.FormatChecker()
        checker.checks("date-time")(is_rfc3339)
        cls = jsonschema.validators.validator_for(schema)
        self._validator = cls(schema, format_checker=checker)

    def errors(self, document: Any) -> list[str]:
        """``field.path: what is wrong`` for each error; [] when valid.

        An error under ``oneOf`` / ``anyOf`` (the model's result types, its
        passed / message rule) is told by the branch meant: the one whose
        constants (``type: ndrpdr``) the document matches (``explain``).
        """
        lines: list[str] = []
        for error in self._validator.iter_errors(document):
            for deepest in explain(error):
                where = ".".join(str(p) for p in deepest.absolute_path) or "(document)"
                lines.append(f"{where}: {deepest.message}")
        return sorted(dict.fromkeys(lines))


def explain(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """The errors that say why ``error`` happened: itself, or those of the branch meant.

    For a ``oneOf`` / ``anyOf`` error, the branches whose ``const`` checks
    fail (a result of another ``type``) are not the one meant; when exactly
    one branch is left, its errors are explained in turn, else jsonschema's
    ``best_match`` picks one error.
    """
    if not error.context:
        return [error]
    branches: dict[Any, list[jsonschema.ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    meant = [errs for errs in branches.values() if not any(e.validator == "const" for e in errs)]
    if len(meant) == 1:
        return [found for sub in meant[0] for found in explain(sub)]
    return explain(jsonschema.exceptions.best_match(error.context))
