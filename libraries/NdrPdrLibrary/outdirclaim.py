"""A plain ``robot`` run takes its output directory's lock, as ``bin/run-suites`` does.

The library takes ``<output dir>/.ndrpdr-run.lock`` (``ndrpdr.outdir.outdirlock``)
when Robot imports it: the earliest moment library code runs in a robot
process, with ``${OUTPUT DIR}`` known. Under pabot the directory is the one
the outputs are merged into, and every worker of one pabot run shares the
lock of their parent, pabot; under ``bin/run-suites`` the shell already holds
it, and its robot (or pabot's workers) write there as its run.

When another live run holds the directory, this run fails at once, naming
the holder, instead of writing beside it as ``bin/run-suites`` does: Robot
writes its output.xml, log.html and report.html into ``--outputdir``
whatever the library does, so records written elsewhere would be split from
the output.xml that links them, while the second run's searches would still
share the testbed and the machine with the first's. Every keyword of the
library fails with the same message (but `Tear Down Testbed`, which has
nothing to tear down), and the failure is fatal: Robot stops the whole run
at the first of them (``ROBOT_EXIT_ON_FAILURE``; in the generated suites,
their suite setup), so nothing is measured. Robot has opened
output.xml before any library is imported, so a second plain run still
truncates the first run's output.xml: only ``bin/run-suites``, which takes
the lock before robot starts, or an ``--outputdir`` of each run's own keeps
that whole.
"""

from __future__ import annotations

import datetime
import functools
import os
from pathlib import Path

from ndrpdr.outdir.outdirlock import claim
from ndrpdr.results.runsection import RUN_STARTED_ENV
from NdrPdrLibrary import robotout
from NdrPdrLibrary.runstamp import run_id


class OutputDirInUseError(RuntimeError):
    """Another live run holds the output directory: stops the whole Robot run."""

    ROBOT_SUPPRESS_NAME = True
    ROBOT_EXIT_ON_FAILURE = True


def in_use_message(directory: Path, other: str) -> str:
    """What a run into a directory another live run holds is told."""
    return (
        f"output directory {directory} is in use by another run ({other}); this run stops: "
        "two runs into one output directory would write over each other's records and "
        "output.xml (give each its own --outputdir, or use bin/run-suites, which writes "
        "beside a directory in use)"
    )


def claim_output_dir() -> str | None:
    """Take the run's output directory; the error's message when another run holds it.

    Once per directory and process (the library may be imported with other
    arguments by other suites). None outside a Robot run (Libdoc, plain
    Python) and when the lock file cannot be made (a read-only directory:
    the record's write says so later).
    """
    if not robotout.robot_running():
        return None
    pabot_worker = robotout.in_shared_output_dir()
    return _claim(robotout.final_output_dir().resolve(), pabot_worker)


@functools.cache
def _claim(directory: Path, pabot_worker: bool) -> str | None:
    started = os.environ.get(RUN_STARTED_ENV) or datetime.datetime.now(
        datetime.timezone.utc
    ).isoformat(timespec="seconds")
    try:
        found = claim(
            directory,
            pid=os.getppid() if pabot_worker else os.getpid(),
            run_id=run_id(),
            started=started,
            shared=pabot_worker,
        )
    except OSError as exc:
        robotout.warn(f"cannot lock the output directory {directory}: {exc}")
        return None
    if found.other is None:
        return None
    message = in_use_message(directory, found.other)
    robotout.warn(message)
    return message
