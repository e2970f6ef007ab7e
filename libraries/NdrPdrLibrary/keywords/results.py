"""Results keywords: the last search's record, and records read back from JSON files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ndrpdr.errors import NdrPdrError
from ndrpdr.results.schema import validate_record
from NdrPdrLibrary.keywords.component import Component, keyword
from NdrPdrLibrary.publish import log_record


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise NdrPdrError(f"{path}: cannot read the result record: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise NdrPdrError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise NdrPdrError(f"{path}: a result record is a JSON object, not {type(data).__name__}")
    return data


class ResultsKeywords(Component):
    """Get Last Search Record, Read Result Record, Log Result Record."""

    @keyword("Get Last Search Record", tags=("results",))
    def get_last_search_record(self) -> dict[str, Any]:
        """The JSON result record of the last search, as a dictionary.

        Its format is described by ``results/schemas/result.schema.json``:
        ``${record}[ndr][lower_bound]``, ``${record}[trials]``, ... (the
        fields: "Reading the results" in the manual, docs/results.rst).

        Example:
        | Find NDR And PDR | ethip4-ip4base | 64 |
        | ${record} = | Get Last Search Record |
        | Log | ${record}[search][trial_count] trials |
        """
        if self.ctx.last_record is None:
            raise NdrPdrError("no search has run yet: call Find NDR And PDR first")
        return self.ctx.last_record

    @keyword("Read Result Record", tags=("results",))
    def read_result_record(self, path: Path) -> dict[str, Any]:
        """Read a JSON result record and check it against its schema.

        Fails with the field at fault when the file is not a valid record.

        Example:
        | ${record} = | Read Result Record | ${OUTPUT DIR}/64B-1c-ethip4-ip4base-ndrpdr.json |
        """
        record = _read(path)
        validate_record(record)
        return record

    @keyword("Log Result Record", tags=("results",))
    def log_result_record(self, path: Path) -> None:
        """Log a saved record as a search would: bounds, the plot of the search, the trial table.

        An MRR record logs its receive rates and its trial table, a soak
        record its critical load (the message its test got) and its trial
        table. Handy for looking at a record of an earlier run in a new log.

        Example:
        | Log Result Record | old-results/64B-1c-ethip4-ip4base-ndrpdr.json |
        """
        log_record(self.read_result_record(path))
