"""option() / read_options / options_schema / option_docs on a small options dataclass."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, Literal

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest

from ndrpdr.drivers import option, option_docs, option_names, options_schema, read_options


@dataclasses.dataclass(frozen=True)
class Example:
    """Every kind of option."""

    flag: bool = option(False, "a switch")
    count: int = option(2, "how many", minimum=1, maximum=9)
    rate: float = option(0.5, "how fast [1/s]", minimum=0, exclusive_minimum=True)
    name: str = option("x", "a word", pattern=r"[a-z]+", what="a lower-case word")
    mode: Literal["io", "mac"] = option("io", "a mode")
    size: int = option(2048, "a size [kB]", choices=(2048, 1048576))
    args: tuple[str, ...] = option((), "words")
    cpus: tuple[int, ...] | None = option(None, "CPUs", minimum=0, min_items=1, unique=True)
    limit: float | None = option(None, "a cap", minimum=0, exclusive_minimum=True)
    kind: Literal["a", "b"] | None = option(None, "a kind")

    def problems(self) -> Iterator[tuple[str, str]]:
        if self.cpus is not None and len(self.cpus) < self.count:
            yield "cpus", f"{list(self.cpus)} has fewer than count={self.count}"


class BadOptionError(Exception):
    pass


def _read(values: dict[str, Any]) -> Example:
    return read_options(Example, values, lambda field, detail: BadOptionError(f"{field}: {detail}"))


def test_defaults_and_conversions() -> None:
    assert _read({}) == Example()
    made = _read({"rate": 2, "args": ["-v", "x"], "cpus": [3, 1], "limit": 5, "kind": None})
    assert made.rate == 2.0 and isinstance(made.rate, float)
    assert made.args == ("-v", "x") and made.cpus == (3, 1)
    assert made.limit == 5.0 and made.kind is None
    assert option_names(Example)[:3] == ("flag", "count", "rate")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"cont": 3}, "cont: unknown option (did you mean 'count'?); known: flag, count, rate"),
        ({"zzz": 3}, "zzz: unknown option; known: flag"),
        ({"flag": 1}, "flag: 1 is not true or false"),
        ({"count": 0}, "count: 0 is not an integer >= 1 and <= 9"),
        ({"count": 10}, "count: 10 is not an integer >= 1 and <= 9"),
        ({"count": True}, "count: True is not an integer"),
        ({"count": 2.0}, "count: 2.0 is not an integer"),
        ({"rate": 0}, "rate: 0 is not a finite number > 0"),
        ({"rate": float("inf")}, "rate: inf is not a finite number > 0"),
        ({"rate": "1"}, "rate: '1' is not a finite number > 0"),
        ({"name": "Abc"}, "name: 'Abc' is not a lower-case word"),
        ({"name": ""}, "name: '' is not a lower-case word"),
        ({"mode": "macswap"}, "mode: 'macswap' is not one of io, mac"),
        ({"size": 4096}, "size: 4096 is not one of 2048, 1048576"),
        ({"size": "2048"}, "size: '2048' is not one of 2048, 1048576"),
        ({"args": "-v"}, "args: '-v' is not a list of strings"),
        ({"args": ["-v", 3]}, "args: item 3 is not a non-empty string"),
        ({"cpus": []}, "cpus: [] is empty"),
        ({"cpus": [1, 1]}, "cpus: [1, 1] lists an item twice"),
        ({"cpus": [-1, 2]}, "cpus: item -1 is not an integer >= 0"),
        ({"count": None}, "count: has no value (null); leave the option out to take its default"),
        ({"cpus": [4]}, "cpus: [4] has fewer than count=2"),
    ],
)
def test_bad_values_name_the_field(values: dict[str, Any], message: str) -> None:
    with pytest.raises(BadOptionError) as raised:
        _read(values)
    assert str(raised.value).startswith(message)


def test_schema_accepts_what_the_reader_accepts_and_refuses_what_it_refuses() -> None:
    schema = options_schema(Example, "Example options.")
    validator = jsonschema.Draft202012Validator(schema)
    good = {"rate": 2, "args": ["-v"], "cpus": [3, 1], "limit": None, "kind": "b", "size": 1048576}
    assert list(validator.iter_errors(good)) == []
    _read(good)
    for bad in ({"count": 0}, {"rate": 0}, {"name": "Abc"}, {"mode": "x"}, {"cpus": []},
                {"cpus": [1, 1]}, {"other": 1}, {"flag": "yes"}, {"size": 4096}):  # fmt: skip
        assert list(validator.iter_errors(bad)), bad
        with pytest.raises(BadOptionError):
            _read(bad)
    properties = schema["properties"]
    assert schema["additionalProperties"] is False
    assert properties["count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 9,
        "description": "how many (default 2).",
    }
    assert properties["limit"]["type"] == ["number", "null"]
    assert properties["kind"]["enum"] == ["a", "b", None]
    assert properties["name"]["errorMessage"] == "is not a lower-case word"


def test_docs_show_type_limits_and_default() -> None:
    docs = {doc.name: doc for doc in option_docs(Example)}
    assert (docs["count"].type, docs["count"].default) == ("integer 1..9", "2")
    assert (docs["rate"].type, docs["rate"].default) == ("number > 0", "0.5")
    assert (docs["mode"].type, docs["size"].type) == ("io | mac", "2048 | 1048576")
    assert (docs["args"].type, docs["args"].default) == ("list of strings", "[]")
    assert (docs["cpus"].type, docs["cpus"].default) == ("list of integers >= 0", "not set")
    assert docs["flag"].default == "false" and docs["flag"].doc == "a switch"


def test_a_field_without_option_is_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Plain:
        value: int = 1

    with pytest.raises(TypeError, match=r"Plain\.value is not made with option"):
        option_names(Plain)
