"""The topologies that come with the package: the simulator's (2-node and 3-node).

``topologies/sim.yaml`` and ``topologies/sim-3n.yaml`` in a checkout are
links to these files, so the default testbed is the same file whether
``ndrpdr`` runs from a checkout or from an installed package. ``builtin``
gives the packaged file for such a path when the path itself does not
exist (an installed ``ndrpdr`` run from any directory).
"""

from __future__ import annotations

import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: The built-in topologies by the path a checkout has them at (the defaults say these paths).
BUILTIN = {f"topologies/{name}": _HERE / name for name in ("sim.yaml", "sim-3n.yaml")}


def builtin(path: str | os.PathLike[str]) -> Path | None:
    """The packaged file for ``path`` when it names a built-in topology that does not exist
    where it is looked for (relative to the working directory); None otherwise."""
    given = Path(path)
    if given.is_absolute() or given.exists():
        return None
    return BUILTIN.get(given.as_posix())
