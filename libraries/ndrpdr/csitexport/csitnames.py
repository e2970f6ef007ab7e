"""How a test is named in CSIT's JSON model: test id, long and short name, the info file's path.

CSIT (its test_case model, version 1.5.1) names a test three ways:
``test_id`` is ``{suite name}.{test name}``, both lower case with spaces
as underscores; ``test_name_short`` is the suite tag part of the test name
(``ethip4-ip4base``); ``test_name_long`` is
``{nic}-{frame size}-{threads and cores}-{short name}``. CSIT writes each
test's document to ``{suite path}/{test name}.info.json`` below its output
directory, the suite path being the suite id split at its dots.

Our test names follow CSIT's pattern (``64B-1c-ethip4-ip4base-ndrpdr``).
Our records name no NIC, so the long name has the testbed (the topology
file's name, ``sim``) in the NIC's place.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import PurePosixPath

#: ``64B-1c-ethip4-ip4base-ndrpdr``: frame size, cores, the rest (suite tag and test type).
_TEST_NAME = re.compile(r"^(?P<frame>\d+B|IMIX)-(?P<cores>\d+c)-(?P<rest>.+)$", re.IGNORECASE)

#: CSIT's threads-and-cores tag, set at run time (``2T1C``).
_THREADS_CORES = re.compile(r"^\d+T(?P<cores>\d+)C$", re.IGNORECASE)

#: The suffix of a file CSIT writes for one test.
INFO_SUFFIX = ".info.json"


def as_id(text: str) -> str:
    """``text`` as CSIT's ids spell names: lower case, spaces as underscores."""
    return text.strip().lower().replace(" ", "_")


@dataclasses.dataclass(frozen=True)
class CsitNames:
    """The names CSIT's model gives one test."""

    #: The suite's name as an id (``throughput.ethip4-ip4base-ndrpdr``).
    suite_id: str
    #: The test's name as an id (``64b-1c-ethip4-ip4base-ndrpdr``).
    test_part: str
    test_name_long: str
    test_name_short: str

    @property
    def test_id(self) -> str:
        """``{suite id}.{test name as id}``: the model's unique name of the test."""
        return f"{self.suite_id}.{self.test_part}"


def _without_type(text: str, test_type: str) -> str:
    suffix = f"-{test_type}"
    return text[: -len(suffix)] if text.endswith(suffix) else text


def _threads_cores(cores: str, tags: Sequence[str]) -> str:
    """The ``2t1c`` tag whose core count is ``cores`` (``1c``), else ``cores`` itself."""
    count = cores[:-1]
    for tag in tags:
        match = _THREADS_CORES.match(tag)
        if match and match["cores"] == count:
            return tag.lower()
    return cores.lower()


def default_suite(test_name: str) -> str:
    """The suite a test of ours belongs to, from its name: ``ethip4-ip4base-ndrpdr``.

    Our suite files are named as the test names without frame size and cores
    (``suites/ip4/ethip4-ip4base-ndrpdr.robot`` holds ``64B-1c-ethip4-ip4base-ndrpdr``),
    so this is the suite Robot names when it runs that file alone. A name
    not of that pattern gives "" (the caller must name the suite).
    """
    match = _TEST_NAME.match(test_name.strip())
    return match["rest"] if match else ""


def csit_names(
    *,
    suite: str,
    test_name: str,
    test_type: str,
    profile: str,
    frame_size: str,
    testbed: str,
    tags: Sequence[str] = (),
) -> CsitNames:
    """The test id, long and short name of test ``test_name`` of ``suite``.

    ``test_type`` is the model's (``ndrpdr``, ``mrr``): it is cut from the
    end of the names, as CSIT does. A test name not of CSIT's pattern gets
    the profile's name as short name and ``frame_size`` (``64``, ``IMIX``)
    for the frame part. Raises ValueError when ``suite`` or ``test_name`` is
    empty.
    """
    if not suite.strip() or not test_name.strip():
        raise ValueError(f"a test needs a suite and a name, not {suite!r} / {test_name!r}")
    test_part = as_id(test_name)
    match = _TEST_NAME.match(test_name.strip())
    if match:
        short = _without_type(as_id(match["rest"]), test_type)
        middle = [match["frame"].lower(), _threads_cores(match["cores"], tags)]
    else:
        short = as_id(profile) or _without_type(test_part, test_type)
        frame = str(frame_size).lower()
        middle = [frame if frame == "imix" else f"{frame}b"]
    if len(short) < 3:  # the model asks for three characters at least
        short = test_part
    long_name = "-".join([*([as_id(testbed)] if testbed.strip() else []), *middle, short])
    return CsitNames(
        suite_id=as_id(suite),
        test_part=test_part,
        test_name_long=long_name,
        test_name_short=short,
    )


def info_path(names: CsitNames) -> PurePosixPath:
    """Where CSIT keeps the test's document, relative to the output directory.

    ``throughput.ethip4-ip4base-ndrpdr.64b-1c-ethip4-ip4base-ndrpdr`` gives
    ``throughput/ethip4-ip4base-ndrpdr/64b-1c-ethip4-ip4base-ndrpdr.info.json``.
    """
    parts = [part for part in names.suite_id.split(".") if part]
    return PurePosixPath(*parts, names.test_part.replace("/", "_") + INFO_SUFFIX)
