"""Removing what crashed runs left behind, without ever touching a live run.

A run is dead when its owner (PID + start time from the state file) no
longer runs, or is a zombie. For a dead run: stop its recorded processes
(start time checked) and anything still inside its namespaces, delete its
root-namespace interfaces, the namespaces, its recorded paths and process
logs, and its state file. Namespaces named
``ndrpdr-<pid>-<hex>-*`` that no state file lists are removed when that
PID is dead. Namespaces of other naming, and unreadable state files, are
left alone (logged).
"""

from __future__ import annotations

import logging
from pathlib import Path

from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.naming import NAMESPACE_PREFIX, parse_namespace
from ndrpdr.localbed.plumbing import delete_links, delete_namespaces
from ndrpdr.localbed.procs import NETNS_RUN_DIR, is_alive, namespace_pids, terminate
from ndrpdr.localbed.state import RunState, StateStore
from ndrpdr.localbed.testbed import remove_path

_log = logging.getLogger(__name__)


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


def _remove_run(store: StateStore, path: Path, state: RunState, removed: list[str]) -> None:
    why = f"run {state.run_id}, owner pid {state.owner_pid} gone"
    recorded = [p.pid for p in state.processes if is_alive(p.pid, p.start_time)]
    if recorded:
        terminate(recorded)
        removed.append(f"processes {', '.join(map(str, recorded))} of {why}")
    try:
        for name in delete_links(state.interfaces):
            removed.append(f"interface {name} ({why})")
    except LocalTestbedError as exc:  # the namespaces' removal frees veth pairs too
        _log.warning("%s: %s", why, exc)
    _remove_namespaces(state.namespaces, removed, why)
    for item in [*state.paths, *state.logs]:
        if remove_path(item):
            removed.append(f"path {item} ({why})")
    path.unlink(missing_ok=True)
    removed.append(f"state file {path}")


def cleanup_leftovers(store: StateStore | None = None) -> list[str]:
    """Remove what dead runs left; return one description per thing removed."""
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
        if not is_alive(state.owner_pid, state.owner_start_time):
            _remove_run(store, path, state, removed)
    for temp, pid in store.temp_files():
        if not is_alive(pid):
            temp.unlink(missing_ok=True)
            removed.append(f"temporary file {temp}")
    for namespace in _ndrpdr_namespaces():
        parsed = parse_namespace(namespace)
        if namespace in listed or parsed is None or is_alive(parsed.pid):
            continue
        _remove_namespaces([namespace], removed, f"no state file, creator pid {parsed.pid} gone")
    return removed
