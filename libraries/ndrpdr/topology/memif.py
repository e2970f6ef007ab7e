"""memif links in a topology: both ends memif ports, on one socket file (pure).

A memif port (``model: memif``) is a shared-memory packet interface, not a
Linux interface: its link is a Unix socket file both ends open (one
listens, the other connects), not a cable or a veth. The topology may name
that file (``memif_socket``, the same at both ends); a lab in a box gives
each memif link one in the run's directory (``ndrpdr.labbox.memif``).
"""

from __future__ import annotations

from ndrpdr.topology.model import Interface


def memif_link_problem(link: str, first: Interface, second: Interface) -> tuple[str, str] | None:
    """(field of ``second``, what is wrong) when link ``link`` is not a sound memif link."""
    if first.is_memif != second.is_memif:
        return (
            "model",
            f"link {link!r} has a memif port at one end only: a memif port's peer is a memif "
            "port (model: memif at both ends)",
        )
    sockets = sorted({e.memif_socket for e in (first, second) if e.memif_socket is not None})
    if len(sockets) > 1:
        return (
            "memif_socket",
            f"link {link!r}: its ends name different memif sockets ({', '.join(sockets)})",
        )
    if sockets and not first.is_memif:
        return "memif_socket", f"link {link!r}: only memif ports (model: memif) take one"
    return None
