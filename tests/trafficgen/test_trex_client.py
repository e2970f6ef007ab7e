"""client.py: importing TRex's client from client_path, the StlClient adapter, refusals.

No real TRex ran, and no TRex client is installed here. A stand-in
package ``trex/stl/api.py`` is written to a temporary client_path; its
classes record how they are called and behave as TRex's documented STL
API does (``STLClient.wait_on_traffic`` raises ``TRexTimeoutError`` on
timeout, ``get_warnings`` returns event objects with ``msg``, errors are
``TRexError`` whose ``str()`` may fail as in trex_stl_lib 0.3 on Python
3.11).
"""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.profiles import get_profile
from ndrpdr.testbed.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.client import (
    ClientSettings,
    StlClient,
    TrexClientError,
    error_text,
    is_version_refusal,
    load_stl_api,
    version_refusal_message,
)
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.streams import FixIpv4, FlowVar, StreamSpec, WriteVar

STAND_IN_API = textwrap.dedent(
    '''
    """Stand-in for trex.stl.api: records calls, behaves as TRex documents."""
    calls = []
    refuse = None


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
    class STLScVmRaw(Recorded): pass
    class STLFlowLatencyStats(Recorded): pass

    STLStreamDstMAC_PKT = 2


    class STLClient:
        CORE_MASK_SPLIT = 1
        CORE_MASK_PIN = 2

        def __init__(self, server="localhost", sync_port=4501, async_port=4500,
                     verbose_level="error", logger=None):
            calls.append(("STLClient", server, sync_port, async_port))

        def connect(self):
            calls.append(("connect",))
            if refuse:
                raise TRexError(refuse)

        def get_server_version(self):
            return {"version": "v3.08", "build_date": "Nov  5 2025"}

        def get_port_attr(self, port):
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

        def wait_on_traffic(self, ports=None, timeout=None, rx_delay_ms=None):
            calls.append(("wait_on_traffic", ports, timeout))
            if timeout is not None and timeout < 1:
                raise TRexTimeoutError(timeout)

        def get_stats(self, ports=None, sync_now=True):
            return {0: {"opackets": 1, "ipackets": 1}, "global": {}}

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


def settings(path: str | None) -> ClientSettings:
    return ClientSettings(node="TG", server="10.0.0.1", client_path=path)


def test_imports_the_client_from_client_path(client_path: str) -> None:
    api = load_stl_api(settings(client_path))
    assert api.__name__ == "trex.stl.api"
    assert api.__file__.startswith(client_path)


def test_client_path_without_the_package_names_the_option(tmp_path: Path) -> None:
    with pytest.raises(
        TrexClientError, match=r"nodes\.TG\.options\.client_path: .* has no trex/stl package"
    ):
        load_stl_api(settings(str(tmp_path)))


def test_no_client_at_all_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "trex_stl_lib", None)  # importing it now fails
    with pytest.raises(TrafficGeneratorError) as info:
        load_stl_api(settings(None))
    message = str(info.value)
    assert "cannot import the TRex STL client trex_stl_lib.api" in message
    assert "set nodes.TG.options.client_path" in message
    assert "automation/trex_control_plane/interactive" in message


def test_adapter_makes_the_calls_trex_documents(client_path: str) -> None:
    client = StlClient(settings(client_path))
    calls: list[Any] = client.api.calls
    assert calls == [("STLClient", "10.0.0.1", 4501, 4500)]
    client.connect()
    assert client.get_server_version()["version"] == "v3.08"
    assert client.get_port_attr(0)["speed"] == 100.0
    client.acquire([0, 1], force=True)
    client.reset([0, 1])
    client.clear_events()
    client.start([0, 1], mult="1250000.000pps", duration=2.0, force=True, core_mask="pin")
    assert client.wait_on_traffic([0, 1], timeout_s=5.0) is True
    assert client.wait_on_traffic([0, 1], timeout_s=0.1) is False  # TRexTimeoutError
    assert client.get_warnings() == ["queue full on port 0"]
    assert client.get_stats([0, 1])[0] == {"opackets": 1, "ipackets": 1}
    client.release([0, 1])
    client.disconnect()
    assert calls[1:] == [
        ("connect",),
        ("acquire", [0, 1], True),
        ("reset", [0, 1]),
        ("clear_events",),
        ("start", [0, 1], "1250000.000pps", True, 2.0, 2),
        ("wait_on_traffic", [0, 1], 5.0),
        ("wait_on_traffic", [0, 1], 0.1),
        ("release", [0, 1]),
        ("disconnect",),
    ]


def test_adapter_builds_streams_from_specs(client_path: str) -> None:
    client = StlClient(settings(client_path))
    engine = (FlowVar("sport", 2, 1024, 1027), WriteVar("sport", 34), FixIpv4(14))
    specs = [
        StreamSpec("dir0-64B", 0, b"\x01" * 60, 750.0, engine),
        StreamSpec("dir0-latency", 0, b"\x02" * 60, 250.0, latency_pg_id=0),
        StreamSpec("dir0-list", 0, b"\x03" * 60, 1.0, (FlowVar("src", 4, values=(7, 8)),)),
    ]
    client.add_streams(specs, [0])
    _, streams, ports = client.api.calls[-1]
    assert ports == [0]
    data, latency, listed = (s.kwargs for s in streams)
    assert data["name"] == "dir0-64B" and data["mac_src_override_by_pkt"] is True
    assert data["mac_dst_override_mode"] == 2  # the frames keep their own MACs
    assert data["mode"].kwargs == {"pps": 750.0}
    builder = data["packet"].kwargs
    assert builder["pkt_buffer"] == b"\x01" * 60
    (instructions,) = builder["vm"].args
    assert [(type(i).__name__, i.kwargs) for i in instructions] == [
        (
            "STLVmFlowVar",
            {"name": "sport", "size": 2, "op": "inc", "min_value": 1024, "max_value": 1027},
        ),
        ("STLVmWrFlowVar", {"fv_name": "sport", "pkt_offset": 34}),
        ("STLVmFixIpv4", {"offset": 14}),
    ]
    assert latency["packet"].kwargs["vm"] is None
    assert latency["flow_stats"].kwargs == {"pg_id": 0}
    assert "flow_stats" not in data
    (listed_vm,) = listed["packet"].kwargs["vm"].args
    assert listed_vm[0].kwargs == {"name": "src", "size": 4, "op": "inc", "value_list": [7, 8]}


def test_old_clients_without_value_list_get_a_clear_error(
    client_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = StlClient(settings(client_path))

    class OldFlowVar:  # STLVmFlowVar as in TRex v2.29 / trex_stl_lib 0.3: no value_list
        def __init__(
            self, name: str, init_value: Any = None, min_value: int = 0, max_value: int = 255,
            size: int = 4, step: int = 1, op: str = "inc",
        ) -> None:  # fmt: skip
            self.name = name

    monkeypatch.setattr(client.api, "STLVmFlowVar", OldFlowVar)
    spec = StreamSpec("dir0-64B", 0, b"\0" * 60, 1.0, (FlowVar("src", 4, values=(1, 2)),))
    with pytest.raises(TrexClientError, match=r"needs STLVmFlowVar\(value_list=\.\.\.\)"):
        client.add_streams([spec], [0])
    client.add_streams([StreamSpec("ok", 0, b"\0" * 60, 1.0, (FlowVar("sport", 2, 1, 9),))], [0])


def test_adapter_errors_carry_trex_text_even_when_str_fails(client_path: str) -> None:
    client = StlClient(settings(client_path))
    with pytest.raises(TrexClientError, match=r"TRex stop: port 7 is not acquired"):
        client.stop([7])
    client.api.refuse = "RPC version mismatch: a newer client version is required"
    with pytest.raises(TrexClientError) as info:
        client.connect()
    assert is_version_refusal(str(info.value))


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


def test_driver_over_the_adapter_reports_a_refusal(client_path: str) -> None:
    """The driver with its default client factory, importing the stand-in from client_path."""
    csit = load_topology(Path(__file__).resolve().parents[2] / "topologies/csit-2n-example.yaml")
    options = {"start_server": False, "client_path": client_path, "max_rate_pps": 1e6}
    tg_node = dataclasses.replace(csit.tg, options=options)
    topology = dataclasses.replace(csit, nodes={**csit.nodes, "TG": tg_node})
    tg = TrexTrafficGenerator(topology, get_profile("ethip4-ip4base"), 64)
    api = load_stl_api(settings(client_path))
    api.refuse = "RPC version mismatch: a newer client version is required"
    with pytest.raises(TrafficGeneratorError) as info:
        tg.measure(1.0, 1000.0)
    assert str(info.value).startswith(
        f"TG: the TRex server at 10.0.0.1:4501 refused the TRex client at client_path="
        f"{client_path}: RPC version mismatch: a newer client version is required. Use the "
        "client shipped with the server"
    )
    assert [c[0] for c in api.calls] == ["STLClient", "connect", "disconnect"]
