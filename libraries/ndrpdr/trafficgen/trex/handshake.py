"""A new TRex client's handshake: connect while the server starts, then version, cores, ports.

``handshake`` connects the client, retried while the server's API is not
up yet (``server.wait_for_api``: ``options.api_retries`` tries,
``api_retry_interval_s`` apart; a server started here that exits ends it
at once). A server that refuses the client's API version is not asked
again: the error says which client to use (``client.version_refusal_message``).
Then it reads the server's version and its data-plane cores per port pair
and acquires the TRex ports (``force``: from any client that holds them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from ndrpdr.access.base import BackgroundProcess
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.client import (
    ClientSettings,
    TrexClient,
    TrexClientError,
    error_text,
    is_version_refusal,
    version_refusal_message,
)
from ndrpdr.trafficgen.trex.options import TrexOptions
from ndrpdr.trafficgen.trex.server import wait_for_api

#: Runs a client call: (what it is, the call) -> its value (the session's ``call``).
Call = Callable[[str, Callable[[], Any]], Any]


class _RefusedError(Exception):
    """The server refused the client's API version (not worth retrying)."""


def trex_text(exc: BaseException) -> str:
    """TRex's own text of a client error (without the adapter's prefix), else the message."""
    text = exc.trex_text if isinstance(exc, TrexClientError) else None
    return text if text is not None else error_text(exc)


@dataclasses.dataclass(frozen=True)
class Handshake:
    """What the server said: its ``version`` ("v3.08") and its data-plane cores per port
    pair (None: it did not say)."""

    version: str
    cores_per_port_pair: int | None


def handshake(
    client: TrexClient,
    *,
    settings: ClientSettings,
    options: TrexOptions,
    process: BackgroundProcess | None,
    ports: Sequence[int],
    call: Call,
    sleep: Callable[[float], None],
) -> Handshake:
    """Connect ``client`` to the server (``process``: the one started here, if any) and
    acquire ``ports``; every call but the connect goes through ``call``."""

    def connect() -> None:
        try:
            client.connect()
        except Exception as exc:
            text = trex_text(exc)
            if is_version_refusal(text):
                raise _RefusedError(text) from exc
            raise

    try:
        wait_for_api(
            settings.node,
            connect,
            process=process,
            retries=options.api_retries,
            interval_s=options.api_retry_interval_s,
            is_fatal=lambda exc: isinstance(exc, _RefusedError),
            sleep=sleep,
        )
    except _RefusedError as exc:
        raise TrafficGeneratorError(
            version_refusal_message(settings, str(exc), options.install_dir)
        ) from exc
    version = call("get_server_version", client.get_server_version)
    info = call("get_system_info", client.get_system_info)
    cores = info.get("dp_core_count_per_port")
    valid = isinstance(cores, int) and not isinstance(cores, bool) and cores >= 1
    call("acquire", lambda: client.acquire(ports, force=True))
    return Handshake(str(version.get("version", "unknown")), cores if valid else None)
