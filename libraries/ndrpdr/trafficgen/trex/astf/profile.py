"""A stateful family's TRex ASTF profile: plain data here, TRex's objects in the TRex child.

``astf_spec`` (parent side) turns a family's ``Transactions`` and the
frame size into a plain mapping; ``build_astf_profile`` (child side: it
imports nothing but the standard library, and takes TRex's
``trex.astf.api`` module as an argument) builds TRex's ``ASTFProfile``
from it. The programs, after CSIT's ASTF profiles (facts only):

* UDP cps: the client sends one request; the server, once it has it,
  one response;
* TCP cps: the client connects and closes; the server accepts and closes
  when the client does (SYN, SYN-ACK, ACK, FIN...: 7 frames);
* UDP tput: the client sends ``data_frames`` messages; the server, once
  it has them all, sends as many back (keepalives pushed far away, so no
  other frame is sent);
* TCP tput: after the handshake, ``data_frames`` times a segment each way
  (client sends, server echoes), the MSS set so that a segment fills the
  frame.

Clients are ``hosts`` addresses from the clients' network (in order), each
``ports`` connections (TRex's ``limit`` = the scale), to as many servers
on port ``SERVER_PORT``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

#: Ethernet (14), IPv4 (20) and FCS (4) [B].
_L2_L3_FCS_B = 38
#: UDP's and TCP's headers [B]; TRex's TCP segments also carry 12 B of options (timestamps).
_UDP_B, _TCP_B, _TCP_OPTIONS_B = 8, 20, 12
#: A keepalive far beyond any trial [ms], so that UDP flows send nothing but their data.
_NO_KEEPALIVE_MS = 2_000_000


def astf_spec(
    transactions: Any, frame_size: int, clients: str, servers: str, port: int
) -> dict[str, Any]:
    """The plain description ``build_astf_profile`` takes (``transactions``: a Transactions).

    ``clients`` / ``servers``: the /16s (or any prefix holding ``hosts``
    addresses) of the two sides; ``port``: the servers' port.
    """
    l4 = _UDP_B if transactions.protocol == "udp" else _TCP_B + _TCP_OPTIONS_B
    payload = frame_size - _L2_L3_FCS_B - l4
    carries_data = transactions.protocol == "udp" or transactions.kind == "tput"
    if payload < 1 and carries_data:  # TCP cps only connects and closes: no payload
        raise ValueError(f"frame size {frame_size} B leaves no payload after {l4} B of L4")

    def span(prefix: str) -> list[str]:
        first = ipaddress.ip_network(prefix).network_address
        return [str(first), str(first + transactions.hosts - 1)]

    return {
        "kind": transactions.kind,
        "protocol": transactions.protocol,
        "clients": span(clients),
        "servers": span(servers),
        "port": port,
        "limit": transactions.scale,
        "payload": max(payload, 0),
        "mss": max(payload, 0) + _TCP_OPTIONS_B,
        "data_frames": transactions.data_frames,
    }


def _loop(program: Any, var: str, count: int, body: Any) -> None:
    program.set_var(var, count)
    program.set_label(f"{var}:")
    body()
    program.jmp_nz(var, f"{var}:")


def _programs(api: Any, spec: Mapping[str, Any]) -> tuple[Any, Any]:
    data, count = "x" * int(spec["payload"]), int(spec["data_frames"])
    if spec["protocol"] == "udp":
        client, server = api.ASTFProgram(stream=False), api.ASTFProgram(stream=False)
        if spec["kind"] == "cps":
            client.send_msg(data)
            server.recv_msg(1)
            server.send_msg(data)
            return client, server
        client.set_keepalive_msg(_NO_KEEPALIVE_MS)
        server.set_keepalive_msg(_NO_KEEPALIVE_MS)
        _loop(client, "c", count, lambda: client.send_msg(data))
        server.recv_msg(count)
        _loop(server, "s", count, lambda: server.send_msg(data))
        return client, server
    client, server = api.ASTFProgram(), api.ASTFProgram()
    client.connect()
    server.accept()
    if spec["kind"] == "tput":

        def client_turn() -> None:
            client.send(data)
            client.recv(len(data))

        def server_turn() -> None:
            server.recv(len(data))
            server.send(data)

        _loop(client, "c", count, client_turn)
        _loop(server, "s", count, server_turn)
    server.wait_for_peer_close()
    return client, server


def build_astf_profile(api: Any, spec: Mapping[str, Any]) -> Any:
    """TRex's ``ASTFProfile`` for ``spec`` (``astf_spec``), with TRex's ``trex.astf.api``."""
    client, server = _programs(api, spec)
    ip_gen = api.ASTFIPGen(
        glob=api.ASTFIPGenGlobal(ip_offset="0.0.0.1"),
        dist_client=api.ASTFIPGenDist(ip_range=list(spec["clients"]), distribution="seq"),
        dist_server=api.ASTFIPGenDist(ip_range=list(spec["servers"]), distribution="seq"),
    )
    template = api.ASTFTemplate(
        client_template=api.ASTFTCPClientTemplate(
            program=client, ip_gen=ip_gen, limit=int(spec["limit"]), port=int(spec["port"])
        ),
        server_template=api.ASTFTCPServerTemplate(
            program=server,
            assoc=api.ASTFAssociation(rules=api.ASTFAssociationRule(port=int(spec["port"]))),
        ),
    )
    extra: dict[str, Any] = {}
    if spec["protocol"] == "tcp" and spec["kind"] == "tput":
        info = api.ASTFGlobalInfo()
        info.tcp.mss = int(spec["mss"])
        info.tcp.txbufsize = int(spec["mss"])
        info.tcp.rxbufsize = int(spec["mss"])
        extra = {"default_c_glob_info": info, "default_s_glob_info": info}
    return api.ASTFProfile(default_ip_gen=ip_gen, templates=template, **extra)
