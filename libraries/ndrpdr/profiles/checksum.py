"""The Internet checksum (RFC 1071) in pure Python, fast on long buffers.

The one's-complement sum of 16-bit big-endian words equals the buffer read
as one big integer modulo 0xFFFF (because 0x10000 = 1 mod 0xFFFF), except
that a sum of words that are not all zero is 0xFFFF rather than 0. Sums of
parts can therefore be added as plain integers and folded once at the end,
which is how ``ndrpdr.profiles.frames`` patches one template per flow.
"""

from __future__ import annotations


def fold(total: int) -> int:
    """Fold a non-negative sum of 16-bit words / partial sums into 0..0xFFFF (one's complement)."""
    folded = total % 0xFFFF
    return 0xFFFF if folded == 0 and total > 0 else folded


def ones_complement_sum(data: bytes | bytearray | memoryview) -> int:
    """The one's-complement sum of ``data`` as 16-bit big-endian words (odd length: 0-padded)."""
    raw = bytes(data)
    if len(raw) % 2:
        raw += b"\0"
    return fold(int.from_bytes(raw, "big"))


def checksum_of_sum(total: int) -> int:
    """The checksum field value for a (partial-sum) ``total``: the complement of its fold."""
    return 0xFFFF - fold(total)


def internet_checksum(data: bytes | bytearray | memoryview) -> int:
    """The RFC 1071 checksum of ``data`` (what an IPv4 header checksum field holds)."""
    return checksum_of_sum(ones_complement_sum(data))
