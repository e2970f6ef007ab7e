"""Robot Framework's ``Secret`` type where the running Robot has it (7.4 and later)."""

from __future__ import annotations

try:
    from robot.api.types import Secret
except ImportError:  # older Robot Framework: passwords arrive as plain strings
    Secret = str  # type: ignore[misc, assignment, unused-ignore]

__all__ = ["Secret"]
