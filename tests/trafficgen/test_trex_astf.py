"""TRex ASTF: the counters of a stateful trial mapped as CSIT does, and the profiles TRex builds.

``expected/astf_trials_trex_v3.08.jsonl``: four real ASTF trials (UDP and
TCP, cps and tput; 64 hosts x 4 ports at multiplier 128, 100 B frames) of
TRex v3.08 in software mode on a veth pair, recorded with this package's
profiles (``docs/families.rst`` says how; the bundled TRex needs
``astf_schema.json`` added for ASTF). Each line keeps TRex's port and L7
counters as ``get_stats()`` gave them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.profiles import Transactions
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.astf import profile as astfprofile
from ndrpdr.trafficgen.trex.astf.counts import astf_multiplier, astf_trial_result

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "expected" / "astf_trials_trex_v3.08.jsonl"
TREX_CLIENT = Path("/opt/trex/v3.08/automation/trex_control_plane/interactive")


def _recorded() -> list[dict[str, Any]]:
    out = []
    for line in RECORDED.read_text().splitlines():
        trial = json.loads(line)
        trial["stats"] = {int(k) if k.isdigit() else k: v for k, v in trial["stats"].items()}
        out.append(trial)
    return out


def _load(traffic: Transactions, multiplier: float) -> float:
    return multiplier if traffic.kind == "cps" else multiplier * traffic.packets_aggregated


@pytest.mark.parametrize("trial", _recorded(), ids=lambda t: f"{t['protocol']}-{t['kind']}")
def test_real_trials_map_as_csit_counts_them(trial: dict[str, Any]) -> None:
    traffic = Transactions(trial["kind"], trial["protocol"], 64, 4)
    stats = trial["stats"]
    load = _load(traffic, trial["mult"])
    assert astf_multiplier(traffic, load) == trial["mult"]
    result = astf_trial_result(traffic, load, stats, "TG")
    assert result.duration == pytest.approx(traffic.scale / trial["mult"])
    assert result.intended_count == traffic.expected()
    assert result.effective_duration == stats["traffic"]["server"]["m_traffic_duration"]
    client = stats["traffic"]["client"]
    if trial["kind"] == "cps" and trial["protocol"] == "udp":
        assert (result.offered_count, result.forwarded_count) == (
            stats[0]["opackets"],
            stats[0]["ipackets"],
        )
    elif trial["kind"] == "cps":
        assert result.offered_count == client["tcps_connattempt"] == traffic.scale
        assert result.forwarded_count == client["tcps_connects"]
    else:  # tput: every frame of both ports, the packets per transaction as TRex sent them
        assert stats[0]["opackets"] == traffic.scale * traffic.packets_client
        assert stats[1]["opackets"] == traffic.scale * traffic.packets_server
        assert result.offered_count == traffic.expected()
        assert result.forwarded_count == stats[0]["ipackets"] + stats[1]["ipackets"]


def test_a_udp_response_that_never_came_is_a_lost_connection() -> None:
    (trial,) = [t for t in _recorded() if (t["protocol"], t["kind"]) == ("udp", "cps")]
    server = trial["stats"]["traffic"]["server"]
    result = astf_trial_result(Transactions("cps", "udp", 64, 4), 128.0, trial["stats"], "TG")
    assert result.loss_count == 256 - server["udps_accepts"]


def _stats(o0: int, i0: int, o1: int, i1: int, **client: int) -> dict[Any, Any]:
    return {
        0: {"opackets": o0, "ipackets": i0},
        1: {"opackets": o1, "ipackets": i1},
        "traffic": {"client": client, "server": {"m_traffic_duration": 0.0}},
    }


def test_connections_never_attempted_count_as_lost() -> None:
    traffic = Transactions("cps", "tcp", 10, 10)
    stats = _stats(0, 0, 0, 0, tcps_connattempt=80, tcps_connects=80)
    result = astf_trial_result(traffic, 50.0, stats, "TG")
    assert (result.offered_count, result.intended_count) == (80, 100)
    assert result.loss_ratio == pytest.approx(0.2)
    assert result.effective_duration == result.duration == 2.0  # TRex gave no duration


def test_tcp_retransmissions_count_as_lost_frames() -> None:
    traffic = Transactions("tput", "tcp", 1, 10)  # 17 frames a transaction: 170 expected
    result = astf_trial_result(traffic, 170.0, _stats(95, 80, 80, 95), "TG")
    assert (result.offered_count, result.intended_count) == (175, 175)
    assert result.forwarded_count == 175 - 5  # the 5 frames beyond the expected ones


def test_a_missing_counter_is_named() -> None:
    with pytest.raises(TrafficGeneratorError, match=r"^TG: .* no traffic\.server"):
        astf_trial_result(
            Transactions("cps", "udp", 1, 1), 1.0, {0: {"opackets": 1, "ipackets": 1}}, "TG"
        )
    bad = _stats(1, "x", 1, 1)  # type: ignore[arg-type]
    with pytest.raises(TrafficGeneratorError, match=r"counter 0\.ipackets is 'x'"):
        astf_trial_result(Transactions("cps", "udp", 1, 1), 1.0, bad, "TG")


def test_spec_fills_the_frame_and_spans_the_hosts() -> None:
    spec = astfprofile.astf_spec(
        Transactions("tput", "tcp", 65536, 63), 100, "16.0.0.0/16", "48.0.0.0/16", 8080
    )
    assert spec["clients"] == ["16.0.0.0", "16.0.255.255"]
    assert spec["limit"] == 4128768
    assert spec["payload"] == 100 - 38 - 32  # Ethernet, IPv4, FCS; TCP and its options
    with pytest.raises(ValueError, match="frame size 70 B leaves no payload after 32 B"):
        astfprofile.astf_spec(
            Transactions("tput", "tcp", 1, 1), 70, "16.0.0.0/16", "48.0.0.0/16", 1
        )
    tcp_cps = astfprofile.astf_spec(  # CSIT's tcp cps suites are 64B: no payload to carry
        Transactions("cps", "tcp", 1, 1), 64, "16.0.0.0/16", "48.0.0.0/16", 1
    )
    assert tcp_cps["payload"] == 0
    with pytest.raises(ValueError, match="frame size 64 B leaves no payload after 32 B"):
        astfprofile.astf_spec(
            Transactions("tput", "tcp", 1, 1), 64, "16.0.0.0/16", "48.0.0.0/16", 1
        )


_BUILD = """
import json, runpy, sys
sys.path.insert(0, sys.argv[1])
import trex.astf.api as api
mod = runpy.run_path(sys.argv[2])
out = {}
for kind, protocol, hosts, ports in json.loads(sys.argv[3]):
    class T:
        pass
    t = T(); t.kind, t.protocol, t.hosts, t.ports, t.data_frames = kind, protocol, hosts, ports, 5
    t.scale = hosts * ports
    spec = mod["astf_spec"](t, 100, "16.0.0.0/16", "48.0.0.0/16", 8080)
    out[f"{protocol}-{kind}"] = json.loads(mod["build_astf_profile"](api, spec).to_json_str())
print(json.dumps(out))
"""


@pytest.mark.skipif(not TREX_CLIENT.is_dir(), reason=f"TRex's client is not at {TREX_CLIENT}")
def test_trex_builds_each_profile() -> None:
    kinds = [[k, p, 64, 4] for k in ("cps", "tput") for p in ("udp", "tcp")]
    done = subprocess.run(
        [sys.executable, "-I", "-c", _BUILD, str(TREX_CLIENT), astfprofile.__file__,
         json.dumps(kinds)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    built = json.loads(done.stdout.splitlines()[-1])
    for name, profile in built.items():
        (template,) = profile["templates"]
        client = template["client_template"]
        assert client["limit"] == 256 and client["port"] == 8080, name
        ranges = {(d["dir"], d["ip_start"], d["ip_end"]) for d in profile["ip_gen_dist_list"]}
        assert ranges == {("c", "16.0.0.0", "16.0.0.63"), ("s", "48.0.0.0", "48.0.0.63")}, name
        commands = [[c["name"] for c in p["commands"]] for p in profile["program_list"]]
        flat = [name for program in commands for name in program]
        if name == "udp-cps":
            assert flat.count("tx_msg") == 2 and "jmp_nz" not in flat
        elif name == "udp-tput":
            assert flat.count("tx_msg") == 2 and flat.count("jmp_nz") == 2
        elif name == "tcp-cps":
            assert "connect" in flat and "tx" not in flat
        else:
            assert flat.count("tx") == 2 and "c_glob_info" in profile
