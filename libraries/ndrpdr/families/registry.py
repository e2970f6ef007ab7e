"""Every known family: the built-in ones and a lab's own, by CSIT id.

Built-in families live in ``ndrpdr.families.kinds``, one package per kind
(``ip4``, ``nat``, ...), found there rather than listed: each kind's
``defs`` module lists its families in ``FAMILIES`` and gives ``ORDER``,
where they come in the list (the kinds sorted by it). A lab adds its own
without editing the package: every ``*.py`` file of the directories in the
environment variable ``NDRPDR_FAMILIES`` (separated by ``:``) is loaded
the same way, and must define ``FAMILIES``, a list of ``Family``. A lab's
family may not reuse a built-in id. Loading happens on first use, never at
import time.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import pkgutil
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from ndrpdr.errors import NdrPdrError
from ndrpdr.families import kinds
from ndrpdr.families.model import Family
from ndrpdr.profiles import Profile

#: The environment variable naming a lab's family directories.
FAMILIES_ENV = "NDRPDR_FAMILIES"


class FamilyError(NdrPdrError):
    """An unknown family id, or a lab's family file that cannot be loaded (names it)."""


def _module_families(name: str, families: object) -> list[Family]:
    if not isinstance(families, list | tuple) or not all(isinstance(f, Family) for f in families):
        raise FamilyError(f"{name}: FAMILIES must be a list of ndrpdr.families.Family")
    return list(families)


@functools.cache
def builtin_kinds() -> dict[str, ModuleType]:
    """Each kind of ``ndrpdr.families.kinds`` and its ``defs`` module, in ``ORDER``."""
    found: list[tuple[int, str, ModuleType]] = []
    for info in pkgutil.iter_modules(kinds.__path__):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{kinds.__name__}.{info.name}.defs")
        order = getattr(module, "ORDER", None)
        if not isinstance(order, int):
            raise FamilyError(f"{module.__name__}: ORDER must be an int (where its families come)")
        found.append((order, info.name, module))
    return {name: module for _, name, module in sorted(found, key=lambda k: k[:2])}


def _builtin() -> list[Family]:
    out: list[Family] = []
    for module in builtin_kinds().values():
        out += _module_families(module.__name__, getattr(module, "FAMILIES", None))
    return out


def _lab_files(directories: Iterable[str]) -> list[Path]:
    files: list[Path] = []
    for entry in directories:
        if not entry:
            continue
        directory = Path(entry)
        if not directory.is_dir():
            raise FamilyError(f"{FAMILIES_ENV}: {directory} is not a directory")
        files += sorted(p for p in directory.glob("*.py") if not p.name.startswith("_"))
    return files


def _lab(path: Path) -> list[Family]:
    spec = importlib.util.spec_from_file_location(f"ndrpdr_lab_families_{path.stem}", path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a spec
        raise FamilyError(f"{path}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a lab's file: say which one failed and why
        raise FamilyError(f"{path}: loading its families failed: {exc}") from exc
    return _module_families(str(path), getattr(module, "FAMILIES", None))


@functools.cache
def _catalog(lab_dirs: tuple[str, ...]) -> dict[str, Family]:
    catalog: dict[str, Family] = {}
    for family in _builtin():
        if family.id in catalog:  # pragma: no cover - guarded by the registry's tests
            raise FamilyError(f"family {family.id} is defined twice in ndrpdr.families")
        catalog[family.id] = family
    for path in _lab_files(lab_dirs):
        for family in _lab(path):
            if family.id in catalog:
                raise FamilyError(
                    f"{path}: family {family.id} is already defined (built in or in another "
                    "file): give it an id of its own"
                )
            catalog[family.id] = family
    return catalog


def _lab_dirs() -> tuple[str, ...]:
    return tuple(os.environ.get(FAMILIES_ENV, "").split(":"))


def all_families() -> tuple[Family, ...]:
    """Every family: the built-in ones in kind order, then the lab's."""
    return tuple(_catalog(_lab_dirs()).values())


def family_ids() -> tuple[str, ...]:
    """The ids of ``all_families()``."""
    return tuple(_catalog(_lab_dirs()))


@functools.cache
def _kind_by_id() -> dict[str, str]:
    by_id: dict[str, str] = {}
    for name, module in builtin_kinds().items():
        by_id.update((f.id, name) for f in _module_families(module.__name__, module.FAMILIES))
    return by_id


#: The kind of a lab's family (``kind_of``).
LAB_KIND = "lab"


def kind_of(family_id: str) -> str:
    """The kind a built-in family is defined in (``ip4``, ``ipsec``...); ``lab`` for a lab's."""
    return _kind_by_id().get(family_id, LAB_KIND)


def builtin_families() -> tuple[Family, ...]:
    """The built-in families only, in kind order (what the committed suites are made from)."""
    return tuple(_builtin())


def get_family(family_id: str) -> Family:
    """The family ``family_id`` (case-insensitive); FamilyError naming the known ones if unknown."""
    key = family_id.strip().lower() if isinstance(family_id, str) else family_id
    catalog = _catalog(_lab_dirs())
    found = catalog.get(key) if isinstance(key, str) else None
    if found is None:
        raise FamilyError(
            f"test family {family_id!r} is not known: give one of {', '.join(catalog)}"
            + (f" (or add it in a directory of {FAMILIES_ENV})" if isinstance(key, str) else "")
        )
    return found


def profile_of(family_id: str, *, flows: int | None = None) -> Profile:
    """The traffic of family ``family_id``, with ``flows`` flows per direction if given.

    FamilyError for an unknown id; ProfileError for a flow count the family
    does not take (CSIT's families keep their own).
    """
    profile = get_family(family_id).profile
    return profile if flows is None else profile.with_flows(flows)
