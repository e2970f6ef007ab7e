"""child.py and childclient.py: TRex's client in a child process, its line protocol, refusals.

These use a stand-in TRex client package, because what they pin down the
real TRex cannot show here: a server that refuses the client's version
(no such client is installed), a client that hangs or dies in a call,
PyPI's ``trex_stl_lib`` missing, old clients without repeatable random, and
the exact STL objects built for a stream. The real client and server run
in ``test_trex_real.py``.

The stand-in ``trex/stl/api.py`` is written to a temporary client_path;
its classes record how they are called and behave as TRex's documented
STL API does (``STLClient.wait_on_traffic`` raises ``TRexTimeoutError``
on timeout, ``get_warnings`` returns event objects with ``msg``, errors
are ``TRexError`` whose ``str()`` may fail as in trex_stl_lib 0.3 on
Python 3.11, ``connect`` prints to stdout as TRex's client does). It is
imported in this process for the in-process tests of ``child.Served`` and
in real child processes for the ChildClient tests.
"""

from __future__ import annotations

import dataclasses
import io
import math
import os
import signal
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from example_topologies import filled
from ndrpdr.families import profile_of as get_profile
from ndrpdr.profiles import build_frames
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex import child
from ndrpdr.trafficgen.trex.childclient import (
    CHILD_PATH,
    ChildClient,
    child_argv,
    stream_payload,
)
from ndrpdr.trafficgen.trex.client import (
    ClientSettings,
    TrexClientError,
    error_text,
    is_version_refusal,
    version_refusal_message,
)
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.session import TrexSession
from ndrpdr.trafficgen.trex.streams import (
    FixIpv4,
    FixUdpChecksum,
    FlowVar,
    StreamSpec,
    WriteVar,
)

STAND_IN_API = textwrap.dedent(
    '''
    """Stand-in for trex.stl.api: records calls, behaves as TRex documents."""
    import os
    import sys
    import time

    calls = []
    refuse = os.environ.get("STANDIN_REFUSE")


    class TRexError(Exception):
        def __init__(self, msg):
            super().__init__(msg)
            self.msg = msg

        def __str__(self):  # as trex_stl_lib 0.3 on Python 3.11
            raise ValueError("too many values to unpack (expected 2)")


    class TRexTimeoutError(TRexError):
        pass


    class Event:
        def __init__(self, msg):
            self.msg = msg

        def __str__(self):
            return "2025-01-01 00:00:00 - [server][warning] - " + self.msg


    class Recorded:
        def __init__(self, *args, **kwargs):
            self.args = args
            self.kwargs = kwargs

        def __repr__(self):
            return f"{type(self).__name__}({self.kwargs})"


    class STLStream(Recorded): pass
    class STLPktBuilder(Recorded): pass
    class STLTXCont(Recorded): pass
    class STLVmFlowVar(Recorded): pass
    class STLVmWrFlowVar(Recorded): pass
    class STLVmFixIpv4(Recorded): pass
    class STLVmFlowVarRepeatableRandom(Recorded): pass
    class STLVmFixChecksumHw(Recorded): pass
    class STLScVmRaw(Recorded): pass


    class CTRexVmInsFixHwCs:
        L4_TYPE_UDP = 11
    class STLFlowLatencyStats(Recorded): pass

    STLStreamDstMAC_PKT = 2


    class STLClient:
        CORE_MASK_SPLIT = 1
        CORE_MASK_PIN = 2

        def __init__(self, server="localhost", sync_port=4501, async_port=4500,
                     verbose_level="error", logger=None):
            calls.append(("STLClient", server, sync_port, async_port))

        def connect(self):
            print("Connecting to RPC server on", "localhost", flush=True)  # TRex prints
            calls.append(("connect",))
            if refuse:
                raise TRexError(refuse)

        def ping_rpc_server(self):
            calls.append(("ping",))

        def get_server_version(self):
            return {"version": "v3.08", "build_date": "Nov  5 2025"}

        def get_server_system_info(self):
            return {"dp_core_count": 1, "dp_core_count_per_port": 1, "ports": [{}, {}]}

        def get_port_attr(self, port):
            if port == 99:
                print("hanging on port 99", file=sys.stderr, flush=True)
                time.sleep(60)
            if port == 98:
                print("dying on port 98", file=sys.stderr, flush=True)
                os._exit(3)
            if port == 97:
                time.sleep(1.0)
                return {"speed": 97.0}
            return {"speed": 100.0, "link": "UP"}

        def acquire(self, ports=None, force=False, sync_streams=True):
            calls.append(("acquire", ports, force))

        def reset(self, ports=None, restart=False):
            calls.append(("reset", ports))

        def add_streams(self, streams, ports=None):
            calls.append(("add_streams", streams, ports))

        def clear_events(self):
            calls.append(("clear_events",))

        def start(self, ports=None, mult="1", force=False, duration=-1, total=False,
                  core_mask=None, synchronized=False):
            calls.append(("start", ports, mult, force, duration, core_mask))

        def get_active_ports(self, owned=True):
            return []

        def wait_on_traffic(self, ports=None, timeout=None, rx_delay_ms=None):
            calls.append(("wait_on_traffic", ports, timeout))
            if timeout is not None and timeout < 1:
                raise TRexTimeoutError(timeout)

        def get_stats(self, ports=None, sync_now=True):
            return {
                0: {"opackets": 1, "ipackets": 1},
                "global": {"queue_full": 0},
                "latency": {0: {"latency": {"histogram": {10: 3}}}, "global": {}},
                "calls": [repr(c) for c in calls],
                "child": {
                    "scapy_loaded": "scapy" in sys.modules,
                    "sys_path": list(sys.path),
                },
            }

        def get_warnings(self):
            return [Event("queue full on port 0")]

        def stop(self, ports=None, rx_delay_ms=None):
            calls.append(("stop", ports))
            raise TRexError("port 7 is not acquired")

        def release(self, ports=None):
            calls.append(("release", ports))

        def disconnect(self, stop_traffic=True, release_ports=True):
            calls.append(("disconnect",))
    '''
)


@pytest.fixture
def client_path(tmp_path: Path) -> Iterator[str]:
    """A client_path holding the stand-in ``trex`` package; sys.path / modules restored after."""
    stl = tmp_path / "interactive" / "trex" / "stl"
    stl.mkdir(parents=True)
    (tmp_path / "interactive" / "trex" / "__init__.py").write_text("")
    (stl / "__init__.py").write_text("")
    (stl / "api.py").write_text(STAND_IN_API)
    saved_path = list(sys.path)
    saved_modules = {k: v for k, v in sys.modules.items() if k == "trex" or k.startswith("trex.")}
    try:
        yield str(tmp_path / "interactive")
    finally:
        sys.path[:] = saved_path
        for name in [k for k in sys.modules if k == "trex" or k.startswith("trex.")]:
            del sys.modules[name]
        sys.modules.update(saved_modules)


def settings(path: str | None, namespace: str | None = None) -> ClientSettings:
    return ClientSettings(node="TG", server="10.0.0.1", client_path=path, namespace=namespace)


def served(client_path: str) -> child.Served:
    """The child's call handler in this process, opened on the stand-in."""
    handler = child.Served()
    handler.open("TG", "10.0.0.1", 4501, 4500, client_path)
    return handler


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# -- the line protocol ---------------------------------------------------------------


def test_values_keep_int_keys_and_bytes_through_a_line() -> None:
    stats = {
        0: {"opackets": 5, "ipackets": 4, "tx_util": math.inf},
        1: {"opackets": 0, "ipackets": 0},
        "global": {"cpu_util": 1.5, "queue_full": 0},
        "latency": {0: {"latency": {"histogram": {10: 3, 20: 1}}}, "global": {"old_flow": 0}},
        "mixed": {1: "a", "1": "b", None: "c", (1, 2): "d"},
        child.PAIRS_TAG: ["a key that looks like the tag"],
        "frame": b"\x00\x01\xff",
        "list": (1, [2, b"\x03"]),
    }
    line = child.dumps({"id": 1, "value": stats})
    assert "\n" not in line
    back = child.loads(line)["value"]
    assert back == {**stats, "list": [1, [2, b"\x03"]]}
    assert list(back[0]) == ["opackets", "ipackets", "tx_util"]
    assert child.loads(child.dumps({"v": object()}))["v"].startswith("<object object")


def test_serve_answers_each_line_and_reports_errors(client_path: str) -> None:
    lines = [
        child.dumps(
            {
                "id": 1,
                "call": "open",
                "args": {
                    "node": "TG",
                    "server": "s",
                    "sync_port": 1,
                    "async_port": 2,
                    "client_path": client_path,
                },
            }
        ),
        child.dumps({"id": 2, "call": "get_port_attr", "args": {"port": 0}}),
        child.dumps({"id": 3, "call": "stop", "args": {"ports": [7]}}),
        child.dumps({"id": 4, "call": "__init__", "args": {}}),
        "not json",
        child.dumps({"id": 5, "call": "wait_on_traffic", "args": {"ports": [0], "timeout_s": 0.1}}),
    ]
    out = io.StringIO()
    child.serve([line + "\n" for line in lines], out)
    replies = [child.loads(line) for line in out.getvalue().splitlines()]
    assert replies[0] == {
        "id": 1,
        "ok": True,
        "value": {"module": "trex.stl.api", "file": f"{client_path}/trex/stl/api.py"},
    }
    assert replies[1] == {"id": 2, "ok": True, "value": {"speed": 100.0, "link": "UP"}}
    assert replies[2] == {
        "id": 3,
        "ok": False,
        "error": "port 7 is not acquired",  # TRexError whose str() fails: its msg
        "type": "TRexError",
    }
    assert replies[3]["ok"] is False and replies[3]["error"] == "unknown call '__init__'"
    assert replies[4]["ok"] is False and replies[4]["error"].startswith("bad request line")
    assert replies[5] == {"id": 5, "ok": True, "value": None}  # TRexTimeoutError -> None


def test_wait_on_traffic_times_the_end_before_trex_removes_its_rx_filters() -> None:
    """The end is when the ports went idle, not when TRex's wait returned 100 ms later."""
    busy_until = time.monotonic() + 0.05

    class Ports:
        """Ports sending for 50 ms; TRex's wait then takes 100 ms more (virtual ports)."""

        def __init__(self, **_: object) -> None:
            pass

        def get_active_ports(self, owned: bool = True) -> list[int]:
            return [0, 1] if time.monotonic() < busy_until else []

        def wait_on_traffic(
            self, ports: object = None, timeout: object = None, rx_delay_ms: object = None
        ) -> None:
            time.sleep(0.1)

    api = type("Api", (), {"STLClient": Ports, "__name__": "ports"})
    handler = child.Served(load=lambda node, path: api)
    handler.open("TG", "10.0.0.1", 4501, 4500)
    ended = handler.wait_on_traffic([0, 1], timeout_s=5.0)
    returned = time.monotonic()
    assert ended is not None
    assert busy_until <= ended + child.END_POLL_S  # not before the ports went idle
    assert returned - ended >= 0.1  # the RX-filter delay is not part of the traffic
    busy_until = time.monotonic() + 60.0
    assert handler.wait_on_traffic([0, 1], timeout_s=0.05) is None  # still sending


# -- importing TRex's client (in the child) ------------------------------------------


def test_imports_the_client_from_client_path(client_path: str) -> None:
    api = child.load_stl_api("TG", client_path)
    assert api.__name__ == "trex.stl.api"
    assert api.__file__.startswith(client_path)
    assert sys.path[0] == client_path


def test_client_path_without_the_package_names_the_option(tmp_path: Path) -> None:
    with pytest.raises(
        child.ChildError, match=r"nodes\.TG\.options\.client_path: .* has no trex/stl package"
    ):
        child.load_stl_api("TG", str(tmp_path))


def test_no_client_at_all_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "trex_stl_lib", None)  # importing it now fails
    with pytest.raises(child.ChildError) as info:
        child.load_stl_api("TG", None)
    message = str(info.value)
    assert "cannot import the TRex STL client trex_stl_lib.api" in message
    assert "set nodes.TG.options.client_path" in message
    assert "automation/trex_control_plane/interactive" in message


# -- the calls, in this process --------------------------------------------------------


def test_served_makes_the_calls_trex_documents(client_path: str) -> None:
    handler = served(client_path)
    calls: list[Any] = handler.api.calls
    assert calls == [("STLClient", "10.0.0.1", 4501, 4500)]
    handler.connect()
    handler.ping()
    assert handler.get_server_version()["version"] == "v3.08"
    assert handler.get_system_info() == {"dp_core_count": 1, "dp_core_count_per_port": 1}
    assert handler.get_port_attr(0)["speed"] == 100.0
    handler.acquire([0, 1], force=True)
    handler.reset([0, 1])
    handler.clear_events()
    handler.start([0, 1], mult="1250000.000pps", duration=2.0, force=True, core_mask="pin")
    handler.start([0], mult="1.000pps", duration=1.0, force=True, core_mask="split")
    with pytest.raises(child.ChildError, match="core_mask 'all' is not pin or split"):
        handler.start([0], mult="1pps", duration=1.0, force=True, core_mask="all")
    assert handler.wait_on_traffic([0, 1], timeout_s=5.0) is not None
    assert handler.wait_on_traffic([0, 1], timeout_s=0.1) is None  # TRexTimeoutError
    assert handler.get_warnings() == ["queue full on port 0"]
    assert handler.get_stats([0, 1])[0] == {"opackets": 1, "ipackets": 1}
    handler.release([0, 1])
    handler.disconnect()
    handler.disconnect()  # once only
    assert calls[1:] == [
        ("connect",),
        ("ping",),
        ("acquire", [0, 1], True),
        ("reset", [0, 1]),
        ("clear_events",),
        ("start", [0, 1], "1250000.000pps", True, 2.0, 2),
        ("start", [0], "1.000pps", True, 1.0, 1),
        ("wait_on_traffic", [0, 1], 5.0),
        ("wait_on_traffic", [0, 1], 0.1),
        ("release", [0, 1]),
        ("disconnect",),
    ]


def test_streams_built_from_specs_sent_over_the_wire(client_path: str) -> None:
    handler = served(client_path)
    engine = (FlowVar("sport", 2, 1024, 1027), WriteVar("sport", 34), FixIpv4(14))
    nested = (
        FlowVar("ip_dst_tick", 4, 0, 9, next_var="ip_dst"),
        FlowVar("ip_dst", 4, 100, 200, op="random", seed=3, limit=2**24 - 1),
        FlowVar("vlan_id", 2, 100, 110, step=5),
        FixUdpChecksum(14, 54),
    )
    macs = ("02:00:00:00:00:01", "02:00:00:00:00:02")
    frame = build_frames(get_profile("ethip4-ip4base"), 64, 0, *macs)[0]
    specs = [
        StreamSpec("dir0-64B", 0, frame, 750.0, engine),
        StreamSpec("dir0-latency", 0, b"\x02" * 60, 250.0, latency_pg_id=0),
        StreamSpec("dir0-nested", 0, b"\x03" * 80, 1.0, nested),
    ]
    wire = child.loads(child.dumps({"streams": [stream_payload(s) for s in specs]}))
    handler.add_streams(wire["streams"], [0])
    _, streams, ports = handler.api.calls[-1]
    assert ports == [0]
    data, latency, nested_stream = (s.kwargs for s in streams)
    assert data["name"] == "dir0-64B" and data["mac_src_override_by_pkt"] is True
    assert data["mac_dst_override_mode"] == 2  # the frames keep their own MACs
    assert data["mode"].kwargs == {"pps": 750.0}
    builder = data["packet"].kwargs
    assert builder["pkt_buffer"] == frame
    (instructions,) = builder["vm"].args
    assert [(type(i).__name__, i.kwargs) for i in instructions] == [
        (
            "STLVmFlowVar",
            {
                "name": "sport",
                "size": 2,
                "op": "inc",
                "step": 1,
                "min_value": 1024,
                "max_value": 1027,
            },
        ),
        ("STLVmWrFlowVar", {"fv_name": "sport", "pkt_offset": 34}),
        ("STLVmFixIpv4", {"offset": 14}),
    ]
    assert latency["packet"].kwargs["vm"] is None
    assert latency["flow_stats"].kwargs == {"pg_id": 0}
    assert "flow_stats" not in data
    (nested_vm,) = nested_stream["packet"].kwargs["vm"].args
    assert [(type(i).__name__, i.kwargs) for i in nested_vm] == [
        (
            "STLVmFlowVar",
            {
                "name": "ip_dst_tick",
                "size": 4,
                "op": "inc",
                "step": 1,
                "min_value": 0,
                "max_value": 9,
                "next_var": "ip_dst",
            },
        ),
        (
            "STLVmFlowVarRepeatableRandom",
            {
                "name": "ip_dst",
                "size": 4,
                "min_value": 100,
                "max_value": 200,
                "seed": 3,
                "limit": 2**24 - 1,
            },
        ),
        (
            "STLVmFlowVar",
            {
                "name": "vlan_id",
                "size": 2,
                "op": "inc",
                "step": 5,
                "min_value": 100,
                "max_value": 110,
            },
        ),
        ("STLVmFixChecksumHw", {"l3_offset": 14, "l4_offset": 54, "l4_type": 11}),
    ]


def test_old_clients_without_repeatable_random_get_a_clear_error(
    client_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler = served(client_path)
    monkeypatch.delattr(handler.api, "STLVmFlowVarRepeatableRandom")
    spec = StreamSpec(
        "dir0-64B", 0, b"\0" * 60, 1.0, (FlowVar("ip_dst", 4, 1, 9, op="random", seed=1),)
    )
    with pytest.raises(child.ChildError, match=r"'ip_dst'.*STLVmFlowVarRepeatableRandom"):
        handler.add_streams([stream_payload(spec)], [0])
    plain = StreamSpec("ok", 0, b"\0" * 60, 1.0, (FlowVar("sport", 2, 1, 9),))
    handler.add_streams([stream_payload(plain)], [0])


# -- ChildClient: real child processes -----------------------------------------------


def test_child_argv_runs_this_python_by_path_isolated() -> None:
    argv = child_argv(settings(None), "/usr/bin/python3")
    assert argv == ["/usr/bin/python3", "-I", "-c", child.BOOTSTRAP, CHILD_PATH]
    inside = child_argv(settings(None, "ndrpdr-1-2-tg"), "/usr/bin/python3")
    head = ["ip", "netns", "exec", "ndrpdr-1-2-tg"]
    if os.geteuid() != 0:
        head = ["sudo", "-n", "--", *head]
    assert inside == [*head, *argv]


def test_child_client_calls_through_a_child_process(
    client_path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import scapy  # noqa: F401  # the parent has the project's scapy; the child must not

    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    client = ChildClient(settings(client_path))
    try:
        assert client.is_running() and client.pid != os.getpid()
        assert client.module == {"module": "trex.stl.api", "file": f"{client_path}/trex/stl/api.py"}
        client.connect()  # prints to stdout in the child: the reply line stays intact
        client.ping()
        assert client.get_system_info()["dp_core_count_per_port"] == 1
        client.acquire([0, 1], force=True)
        client.add_streams([StreamSpec("s", 0, b"\x01" * 60, 10.0)], [0])
        client.start([0, 1], mult="10.000pps", duration=1.0, force=True, core_mask="split")
        assert client.wait_on_traffic([0, 1], timeout_s=0.1) is None
        ended = client.wait_on_traffic([0, 1], timeout_s=2.0)
        assert ended is not None and abs(ended - time.monotonic()) < 2.0  # the shared clock
        assert client.get_warnings() == ["queue full on port 0"]
        stats = client.get_stats([0, 1])
        with pytest.raises(TrexClientError) as info:
            client.stop([7])
    finally:
        client.close()
    assert stats[0] == {"opackets": 1, "ipackets": 1}  # int keys survive the pipe
    assert stats["latency"][0]["latency"]["histogram"] == {10: 3}
    assert stats["child"]["scapy_loaded"] is False
    child_path = stats["child"]["sys_path"]
    assert child_path[0] == client_path
    parent_only = {p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    assert parent_only and not parent_only & set(child_path)  # -I: no PYTHONPATH
    assert "" not in child_path and os.getcwd() not in child_path
    assert stats["calls"][:3] == [
        "('STLClient', '10.0.0.1', 4501, 4500)",
        "('connect',)",
        "('ping',)",
    ]
    assert "('start', [0, 1], '10.000pps', True, 1.0, 1)" in stats["calls"]
    assert str(info.value) == "TRex stop: port 7 is not acquired"
    assert info.value.trex_text == "port 7 is not acquired"
    assert not client.is_running()
    assert "Connecting to RPC server" in client.stderr_tail()  # TRex's printing: the log


def test_a_bad_client_path_is_said_as_the_child_says_it(tmp_path: Path) -> None:
    with pytest.raises(TrexClientError) as info:
        ChildClient(settings(str(tmp_path)))
    assert str(info.value) == (
        f"nodes.TG.options.client_path: {tmp_path} has no trex/stl package; give the "
        "directory automation/trex_control_plane/interactive of a TRex tree (copied to this "
        "machine)"
    )


def test_a_hung_child_is_killed_by_pid(client_path: str) -> None:
    client = ChildClient(settings(client_path), call_timeout_s=1.0)
    pid = client.pid
    with pytest.raises(TrexClientError) as info:
        client.get_port_attr(99)
    message = str(info.value)
    assert message.startswith(
        f"TG: TRex get_port_attr: the TRex client process (pid {pid}) did not answer within "
        "1 s; killed it; its stderr (tail):\n"
    )
    assert message.endswith("hanging on port 99")
    assert not pid_alive(pid)
    with pytest.raises(TrexClientError, match=rf"TRex ping: .*\(pid {pid}\) has exited"):
        client.ping()
    client.close()  # idempotent after a kill


def test_a_dead_child_ends_the_call_with_its_stderr(client_path: str) -> None:
    client = ChildClient(settings(client_path))
    with pytest.raises(TrexClientError) as info:
        client.get_port_attr(98)
    message = str(info.value)
    assert f"(pid {client.pid}) exited (exit code 3) without answering" in message
    assert message.endswith("dying on port 98")
    with pytest.raises(TrexClientError, match=r"has exited \(exit code 3\)"):
        client.connect()


class AlarmInterruptError(Exception):
    """What the alarm raises in the middle of a call (as Ctrl-C raises KeyboardInterrupt)."""


def test_a_call_interrupted_after_its_request_leaves_the_next_call_in_step(
    client_path: str,
) -> None:
    client = ChildClient(settings(client_path))

    def interrupt(signum: int, frame: object) -> None:
        raise AlarmInterruptError

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(AlarmInterruptError):
            client.get_port_attr(97)  # answers after 1 s: the reply comes after the interrupt
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert client.get_port_attr(0) == {"speed": 100.0, "link": "UP"}  # not port 97's reply
    client.ping()
    client.close()


def test_disconnect_ends_the_child(client_path: str) -> None:
    client = ChildClient(settings(client_path))
    client.connect()
    client.disconnect()
    assert not client.is_running() and client._popen.returncode == 0
    client.close()


# -- refusals ------------------------------------------------------------------------


def test_error_text() -> None:
    class BrokenStrError(Exception):
        def __str__(self) -> str:
            raise ValueError("too many values to unpack")

    assert error_text(ValueError("plain")) == "plain"
    assert error_text(KeyError()) == "KeyError"
    broken = BrokenStrError("a", "b")
    assert error_text(broken) == "('a', 'b')"
    broken.msg = "the message"  # type: ignore[attr-defined]
    assert error_text(broken) == "the message"


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("RPC version mismatch: a newer client version is required", True),
        ("Version mismatch: your client version is too new to be supported by the server", True),
        ("Mismatch between client and server versions", True),
        ("*** [RPC] - Failed to get server response from tcp://10.0.0.1:4501", False),
        ("port 0 is not acquired", False),
    ],
)
def test_version_refusals(text: str, refusal: bool) -> None:
    assert is_version_refusal(text) is refusal


def test_refusal_message_says_which_client_to_use() -> None:
    message = version_refusal_message(
        settings(None),
        "RPC version mismatch: a newer client version is required",
        "/opt/trex/v3.08",
    )
    assert message == (
        "TG: the TRex server at 10.0.0.1:4501 refused PyPI trex_stl_lib (no options.client_path): "
        "RPC version mismatch: a newer client version is required. Use the client shipped with "
        "the server: copy /opt/trex/v3.08/automation/trex_control_plane/interactive from TG to "
        "this machine and set nodes.TG.options.client_path to that directory"
    )


def test_driver_over_a_child_client_reports_a_refusal(
    client_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The driver with its default client factory: a child importing the stand-in."""
    csit = load_topology(filled("csit-2n-example.yaml"))
    options = {"start_server": False, "client_path": client_path, "max_rate_pps": 1e6}
    tg_node = dataclasses.replace(csit.tg, options=options)
    topology = dataclasses.replace(csit, nodes={**csit.nodes, "TG": tg_node})
    monkeypatch.setenv("STANDIN_REFUSE", "RPC version mismatch: a newer client version is required")
    session = TrexSession(topology, access=None)
    tg = TrexTrafficGenerator(topology, get_profile("ethip4-ip4base"), 64, session=session)
    with pytest.raises(TrafficGeneratorError) as info:
        tg.measure(1.0, 1000.0)
    assert str(info.value).startswith(
        f"TG: the TRex server at 10.0.0.1:4501 refused the TRex client at client_path="
        f"{client_path}: RPC version mismatch: a newer client version is required. Use the "
        "client shipped with the server"
    )
    assert not tg.session.is_open
