"""Removing what crashed runs left behind, without ever touching a live run.

A run is dead when its owner (PID + start time from the state file) no
longer runs, or is a zombie. For a dead run (``remove_run``): stop its
reaper if that still runs, its recorded processes (start time checked)
and anything still inside its namespaces, delete its root-namespace
interfaces, the namespaces, its recorded paths and process logs, and its
state file. The run's own reaper (``ndrpdr.localbed.reaper``) calls
``remove_run`` when the owner dies; ``cleanup_leftovers`` calls it for
every dead run it finds, after giving a dead run's live reaper up to
``REAPER_WAIT_S`` to finish first. Namespaces named
``ndrpdr-<pid>-<hex>-*`` that no state file lists are removed when that
PID is dead. Namespaces of other naming, and unreadable state files, are
left alone (logged).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from ndrpdr.localbed.cpuclaim import CLAIM_DIR_NAME, remove_stale_claims
from ndrpdr.localbed.dpdkdirs import remove_stale_dpdk_dirs
from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.naming import NAMESPACE_PREFIX, parse_namespace
from ndrpdr.localbed.plumbing import delete_links, delete_namespaces
from ndrpdr.localbed.procs import NETNS_RUN_DIR, is_alive, namespace_pids, terminate
from ndrpdr.localbed.state import RunState, StateStore, temp_file
from ndrpdr.localbed.testbed import remove_path

_log = logging.getLogger(__name__)

#: Longest wait for a dead run's live reaper to remove the run before cleanup does it [s].
REAPER_WAIT_S = 5.0

#: How often that wait looks whether the reaper is done [s].
_WAIT_STEP_S = 0.05

#: Told what could not be removed (one sentence naming the run and the thing).
ProblemSink = Callable[[str], None]


def _log_problem(text: str) -> None:
    _log.warning("%s", text)


def _ndrpdr_namespaces() -> list[str]:
    try:
        names = [p.name for p in NETNS_RUN_DIR.iterdir()]
        return sorted(n for n in names if n.startswith(NAMESPACE_PREFIX))
    except FileNotFoundError:
        return []


def _remove_namespaces(namespaces: list[str], removed: list[str], why: str) -> None:
    pids = sorted({pid for ns in namespaces for pid in namespace_pids(ns)})
    if pids:
        terminate(pids)
        removed.append(f"processes {', '.join(map(str, pids))} in {why}")
    for namespace in delete_namespaces(namespaces):
        removed.append(f"namespace {namespace} ({why})")


def remove_run(path: Path, state: RunState, *, problem: ProblemSink = _log_problem) -> list[str]:
    """Remove everything of the dead run ``state`` (state file ``path``); describe what went.

    Returns one description per thing removed. Each step goes on when an
    earlier one failed (``problem`` is told what failed and why); the state
    file goes last, always. The calling process never signals itself (a
    reaper removing its own run).
    """
    why = f"run {state.run_id}, owner pid {state.owner_pid} gone"
    removed: list[str] = []

    def step(what: str, action: Callable[[], None]) -> None:
        try:
            action()
        except (OSError, LocalTestbedError) as exc:
            problem(f"{why}: cannot remove {what}: {exc}")

    def stop_recorded() -> None:
        reaper = state.reaper
        mine = reaper is not None and reaper.pid == os.getpid()
        if reaper is not None and not mine and is_alive(reaper.pid, reaper.start_time):
            terminate([reaper.pid])
            removed.append(f"reaper process {reaper.pid} of {why}")
        pids = [p.pid for p in state.processes if is_alive(p.pid, p.start_time)]
        if pids:
            terminate(pids)
            removed.append(f"processes {', '.join(map(str, pids))} of {why}")

    def links() -> None:
        removed.extend(f"interface {name} ({why})" for name in delete_links(state.interfaces))

    def paths() -> None:
        for item in [*state.paths, *state.logs]:
            if remove_path(item):
                removed.append(f"path {item} ({why})")

    step("its processes", stop_recorded)
    step(f"interfaces {', '.join(state.interfaces)}", links)  # namespaces going frees veths too
    step(
        f"namespaces {', '.join(state.namespaces)}",
        lambda: _remove_namespaces(state.namespaces, removed, why),
    )
    step("its files", paths)
    temp = temp_file(path.parent, state.owner_pid, state.run_id)  # killed while saving state
    if temp.exists():
        step(f"temporary file {temp}", lambda: temp.unlink(missing_ok=True))
        if not temp.exists():
            removed.append(f"temporary file {temp}")
    if path.exists():
        step(f"state file {path}", lambda: path.unlink(missing_ok=True))
        if not path.exists():
            removed.append(f"state file {path}")
    return removed


def _reaper_did_it(path: Path, state: RunState, wait_s: float) -> bool:
    """True when the dead run's reaper, still running, removed the run within ``wait_s`` [s]."""
    reaper = state.reaper
    if reaper is None:
        return False
    deadline = time.monotonic() + wait_s
    while is_alive(reaper.pid, reaper.start_time) and time.monotonic() < deadline:
        if not path.exists():
            return True
        time.sleep(_WAIT_STEP_S)
    return not path.exists()


def cleanup_leftovers(
    store: StateStore | None = None,
    *,
    problem: ProblemSink = _log_problem,
    reaper_wait_s: float = REAPER_WAIT_S,
) -> list[str]:
    """Remove what dead runs left; return one description per thing removed.

    ``problem`` is told about each thing that could not be removed (default:
    a logged warning); the rest is removed all the same. A dead run whose
    reaper still runs is left to that reaper for up to ``reaper_wait_s``
    [s] (what it removes is not in the list), then removed here.
    """
    store = StateStore() if store is None else store
    removed: list[str] = []
    listed: set[str] = set()
    for path in store.state_files():
        try:
            state = store.load(path)
        except (OSError, ValueError) as exc:
            _log.warning("leaving unreadable state file %s alone: %s", path, exc)
            continue
        listed.update(state.namespaces)
        if is_alive(state.owner_pid, state.owner_start_time):
            continue
        if not _reaper_did_it(path, state, reaper_wait_s):
            removed.extend(remove_run(path, state, problem=problem))
    for temp, pid in store.temp_files():
        if not is_alive(pid):
            temp.unlink(missing_ok=True)
            removed.append(f"temporary file {temp}")
    for namespace in _ndrpdr_namespaces():
        parsed = parse_namespace(namespace)
        if namespace in listed or parsed is None or is_alive(parsed.pid):
            continue
        why = f"no state file, creator pid {parsed.pid} gone"
        try:
            _remove_namespaces([namespace], removed, why)
        except (OSError, LocalTestbedError) as exc:
            problem(f"namespace {namespace} ({why}): cannot remove it: {exc}")
    try:  # CPU claims of dead runners (the kernel already released their locks)
        removed.extend(remove_stale_claims(store.directory / CLAIM_DIR_NAME))
    except (OSError, LocalTestbedError) as exc:
        problem(f"CPU claims in {store.directory / CLAIM_DIR_NAME}: {exc}")
    removed.extend(remove_stale_dpdk_dirs())
    return removed
