"""astfchild.py and AstfChildClient: TRex's ASTF client in a child process of its own.

A stand-in ``trex/astf/api.py`` (written to a temporary client_path) plays
TRex's ASTF client in a real child process, because the real one cannot
run a trial on this machine: the bundled TRex (/opt/trex) leaves out
``scripts/astf_schema.json``, and its server in ASTF mode exits when a
client connects ("Could not create ASTF validator"; docs/families.rst).
The stand-in's profile classes record how the child builds the profile;
its ASTFClient behaves as TRex's documents (``wait_on_traffic`` raises
``TRexTimeoutError`` on timeout, ``get_stats`` keys ports by int). The
real bundle's ``trex.astf.api`` is imported by a real child once.
"""

from __future__ import annotations

import json
import socket
import textwrap
from pathlib import Path

import pytest

from ndrpdr.profiles import Transactions
from ndrpdr.trafficgen.trex import child
from ndrpdr.trafficgen.trex.astf import child as astfchild
from ndrpdr.trafficgen.trex.astf.client import (
    ASTF_CHILD_PATH,
    AstfChildClient,
    make_trex_client,
)
from ndrpdr.trafficgen.trex.astf.profile import astf_spec
from ndrpdr.trafficgen.trex.childclient import ChildClient
from ndrpdr.trafficgen.trex.client import ClientSettings, TrexClientError

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "expected" / "astf_trials_trex_v3.08.jsonl"
TREX_CLIENT = Path("/opt/trex/v3.08/automation/trex_control_plane/interactive")

STAND_IN_API = textwrap.dedent(
    """
    import json, time

    CALLS = []
    STATS = json.loads(STATS_JSON)


    class TRexTimeoutError(Exception):
        pass


    class _Recorded:
        def __init__(self, *args, **kwargs):
            self.made = (type(self).__name__, kwargs)
            self.steps = []

        def __getattr__(self, name):
            return lambda *args, **kwargs: self.steps.append((name, args))


    for _name in ("ASTFProgram", "ASTFIPGen", "ASTFIPGenGlobal", "ASTFIPGenDist",
                  "ASTFTemplate", "ASTFTCPServerTemplate", "ASTFAssociation",
                  "ASTFAssociationRule", "ASTFGlobalInfo", "ASTFProfile"):
        globals()[_name] = type(_name, (_Recorded,), {})


    class ASTFTCPClientTemplate(_Recorded):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            CALLS.append(("client_template", kwargs["limit"], kwargs["port"]))


    class ASTFClient:
        def __init__(self, server, sync_port, async_port):
            CALLS.append(("ASTFClient", server, sync_port, async_port))
            self.end = None

        def connect(self):
            print("Connecting to RPC server")  # on stdout, as TRex's client prints
            CALLS.append(("connect",))

        def acquire(self, force=False):
            CALLS.append(("acquire", force))

        def reset(self, restart=False):
            CALLS.append(("reset",))

        def load_profile(self, profile, tunables={}, pid_input="_"):
            CALLS.append(("load_profile", type(profile).__name__))

        def clear_stats(self):
            CALLS.append(("clear_stats",))

        def start(self, mult=1, duration=-1, nc=False, block=True, **kwargs):
            CALLS.append(("start", mult, duration, nc))
            self.end = time.monotonic() + duration

        def wait_on_traffic(self, timeout=None, profile_id=None):
            if self.end is not None and time.monotonic() + timeout < self.end:
                time.sleep(timeout)
                raise TRexTimeoutError("timeout")
            CALLS.append(("wait_on_traffic",))

        def get_stats(self):
            stats = {int(k) if k.isdigit() else k: v for k, v in STATS.items()}
            stats["calls"] = [repr(c) for c in CALLS]
            return stats

        def stop(self, block=True):
            CALLS.append(("stop",))

        def release(self, force=False):
            CALLS.append(("release",))

        def disconnect(self, stop_traffic=True, release_ports=True):
            CALLS.append(("disconnect",))
    """
)


def _udp_cps() -> dict[str, object]:
    for line in RECORDED.read_text().splitlines():
        trial = json.loads(line)
        if (trial["protocol"], trial["kind"]) == ("udp", "cps"):
            return dict(trial["stats"])
    raise AssertionError("no udp cps trial recorded")


@pytest.fixture
def client_path(tmp_path: Path) -> str:
    astf = tmp_path / "interactive" / "trex" / "astf"
    astf.mkdir(parents=True)
    (tmp_path / "interactive" / "trex" / "__init__.py").write_text("")
    (astf / "__init__.py").write_text("")
    stats = json.dumps(json.dumps(_udp_cps()))
    (astf / "api.py").write_text(f"STATS_JSON = {stats}\n{STAND_IN_API}")
    return str(tmp_path / "interactive")


def settings(path: str | None, mode: str = "astf") -> ClientSettings:
    return ClientSettings(node="TG", server="10.0.0.1", client_path=path, mode=mode)  # type: ignore[arg-type]


def test_the_factory_makes_the_client_of_the_mode(client_path: str) -> None:
    astf = make_trex_client(settings(client_path))
    try:
        assert isinstance(astf, AstfChildClient)
        assert astf.argv[-1] == ASTF_CHILD_PATH == astfchild.__file__
    finally:
        astf.close()
    with pytest.raises(TrexClientError, match=r"has no trex/stl package"):
        make_trex_client(settings(client_path, "stl"))  # the STL child: no trex/stl here


def test_an_astf_trial_through_a_child_process(client_path: str) -> None:
    spec = astf_spec(Transactions("cps", "udp", 64, 4), 100, "16.0.0.0/16", "48.0.0.0/16", 8080)
    client = AstfChildClient(settings(client_path))
    try:
        assert client.module["module"] == "trex.astf.api"
        client.connect()  # prints to stdout in the child: the reply line stays intact
        client.acquire([0, 1], force=True)
        client.reset([0, 1])
        client.load_profile(spec)
        client.start([0, 1], mult="128.000000", duration=0.5, force=True, core_mask="split")
        assert client.wait_on_traffic([0, 1], timeout_s=0.05) is None
        assert client.wait_on_traffic([0, 1], timeout_s=2.0) is not None
        stats = client.get_stats([0, 1])
        client.stop([0, 1])
        client.disconnect()
    finally:
        client.close()
    assert stats[0] == {"opackets": 256, "ipackets": 255}  # int keys survive the pipe
    assert stats["calls"] == [
        "('ASTFClient', '10.0.0.1', 4501, 4500)",
        "('connect',)",
        "('acquire', True)",
        "('reset',)",
        "('client_template', 256, 8080)",  # the family's scale, built in the child
        "('load_profile', 'ASTFProfile')",
        "('clear_stats',)",
        "('start', 128.0, 0.5, True)",  # ASTF's multiplier as a number; nc: no waiting to close
        "('wait_on_traffic',)",
    ]
    assert "Connecting to RPC server" in client.stderr_tail()


def test_without_trex_own_client_the_child_says_which_option(tmp_path: Path) -> None:
    with pytest.raises(TrexClientError) as info:
        AstfChildClient(settings(str(tmp_path)))
    assert str(info.value).startswith(
        f"nodes.TG.options.client_path: {tmp_path} has no trex/astf package; a stateful family "
        "needs TRex's own client"
    )
    with pytest.raises(child.ChildError, match=r"client_path: None has no trex/astf"):
        astfchild.load_astf_api("TG", None)


def test_calls_beyond_the_astf_ones_are_refused() -> None:
    handler = astfchild.AstfServed()
    reply = handler.handle({"id": 3, "call": "load_profiles", "args": {}})
    assert reply == {"id": 3, "ok": False, "error": "unknown call 'load_profiles'", "type": "?"}
    assert "load_profile" in handler.calls and "load_profile" not in child.Served().calls


@pytest.mark.skipif(not TREX_CLIENT.is_dir(), reason=f"TRex's client is not at {TREX_CLIENT}")
def test_the_bundled_astf_client_imports_in_the_child() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    client = ChildClient(
        ClientSettings(node="TG", server="127.0.0.1", sync_port=port, client_path=str(TREX_CLIENT)),
        program=ASTF_CHILD_PATH,
    )
    try:
        assert client.module == {
            "module": "trex.astf.api",
            "file": f"{TREX_CLIENT}/trex/astf/api.py",
        }
    finally:
        client.close()
