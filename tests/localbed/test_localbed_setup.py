"""LocalTestbed against the real kernel: what setup makes, and that teardown leaves nothing."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from localbed_helpers import MACS, namespace_pids, run_namespaces, topology_2n1l

import ndrpdr.localbed.testbed as testbed_module
from ndrpdr.localbed import LocalTestbed, LocalTestbedError, plumbing
from ndrpdr.localbed.plumbing import SINK_TABLE
from ndrpdr.localbed.procs import is_alive

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

MakeTestbed = Callable[..., LocalTestbed]


def ip_json(namespace: str, *args: str) -> Any:
    out = subprocess.run(
        ["ip", "-n", namespace, "-j", *args], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def links(namespace: str) -> dict[str, dict[str, Any]]:
    return {link["ifname"]: link for link in ip_json(namespace, "-d", "link", "show")}


def in_netns(namespace: str, *argv: str) -> str:
    return subprocess.run(
        ["ip", "netns", "exec", namespace, *argv], capture_output=True, text=True, check=True
    ).stdout


def test_setup_builds_the_topology_and_teardown_removes_it(make_testbed: MakeTestbed) -> None:
    testbed = make_testbed(topology_2n1l(dut_options={"cpu": 1}))
    testbed.setup()
    tg, dut = testbed.namespace("TG"), testbed.namespace("DUT1")
    assert tg == f"ndrpdr-{testbed.run_id}-tg"
    assert dut == f"ndrpdr-{testbed.run_id}-dut"
    assert run_namespaces(testbed.run_id) == {tg, dut}
    assert testbed.run_id.startswith(f"{os.getpid()}-")

    expected = {
        tg: {"tg-if1": ("TG", "port1"), "tg-if2": ("TG", "port2")},
        dut: {"dut-if1": ("DUT1", "port1"), "dut-if2": ("DUT1", "port2")},
    }
    for namespace, ports in expected.items():
        found = links(namespace)
        assert set(found) == {"lo", *ports}
        assert "UP" in found["lo"]["flags"]
        for name, key in ports.items():
            assert found[name]["address"] == MACS[key]
            assert found[name]["linkinfo"]["info_kind"] == "veth"
            assert "UP" in found[name]["flags"]
        sysctl = in_netns(
            namespace,
            "cat",
            "/proc/sys/net/ipv6/conf/all/disable_ipv6",
            "/proc/sys/net/ipv6/conf/default/disable_ipv6",
        )
        assert sysctl.split() == ["1", "1"]
        assert ip_json(namespace, "-6", "addr", "show") in ([], [{}] * 0)

    # the veth peers are the topology's links
    tg_links, dut_links = links(tg), links(dut)
    assert tg_links["tg-if1"]["link_index"] == dut_links["dut-if1"]["ifindex"]
    assert tg_links["tg-if2"]["link_index"] == dut_links["dut-if2"]["ifindex"]

    # RPS: DUT ports steer to CPU 1 (mod CPU count); TG ports untouched
    mask = f"{1 << (1 % (os.cpu_count() or 1)):x}"
    for name in ("dut-if1", "dut-if2"):
        rps = in_netns(dut, "cat", f"/sys/class/net/{name}/queues/rx-0/rps_cpus")
        assert int(rps.strip().replace(",", ""), 16) == int(mask, 16)
    assert int(in_netns(tg, "cat", "/sys/class/net/tg-if1/queues/rx-0/rps_cpus"), 16) == 0

    # TG sink: one netdev ingress chain per TG port, counter drop; nothing in the DUT
    ruleset = json.loads(in_netns(tg, "nft", "-j", "list", "ruleset"))["nftables"]
    chains = [i["chain"] for i in ruleset if "chain" in i]
    assert [(c["table"], c["hook"]) for c in chains] == [(SINK_TABLE, "ingress")] * 2
    rules = [i["rule"] for i in ruleset if "rule" in i]
    assert len(rules) == 2
    assert all({"counter", "drop"} <= {k for e in r["expr"] for k in e} for r in rules)
    text = in_netns(tg, "nft", "list", "ruleset")  # nft 1.0.6 JSON omits the device
    assert 'hook ingress device "tg-if1"' in text
    assert 'hook ingress device "tg-if2"' in text
    assert json.loads(in_netns(dut, "nft", "-j", "list", "ruleset"))["nftables"][1:] == []

    # the state file names the owner and the namespaces
    state = json.loads(testbed.state_file.read_text())
    assert state["run_id"] == testbed.run_id
    assert state["owner"]["pid"] == os.getpid()
    assert sorted(state["namespaces"]) == sorted([tg, dut])

    testbed.teardown()
    assert not run_namespaces(testbed.run_id)
    assert not testbed.state_file.exists()
    testbed.teardown()  # idempotent


def test_setup_and_teardown_are_fast(make_testbed: MakeTestbed) -> None:
    testbed = make_testbed(topology_2n1l())
    started = time.monotonic()
    testbed.setup()
    testbed.teardown()
    assert time.monotonic() - started < 3.0


def test_rps_mask_follows_the_dut_cpu_option(make_testbed: MakeTestbed) -> None:
    cpus = os.cpu_count() or 1
    with make_testbed(topology_2n1l(dut_options={"cpu": cpus})) as testbed:  # wraps to CPU 0
        rps = in_netns(
            testbed.namespace("DUT1"), "cat", "/sys/class/net/dut-if2/queues/rx-0/rps_cpus"
        )
        assert int(rps.strip().replace(",", ""), 16) == 1


def test_context_manager_tears_down_on_exception(make_testbed: MakeTestbed) -> None:
    testbed = make_testbed(topology_2n1l())
    with pytest.raises(RuntimeError, match="boom"), testbed:
        assert len(run_namespaces(testbed.run_id)) == 2
        raise RuntimeError("boom")
    assert not run_namespaces(testbed.run_id)
    assert not testbed.state_file.exists()


def test_context_manager_tears_down_on_keyboard_interrupt(make_testbed: MakeTestbed) -> None:
    testbed = make_testbed(topology_2n1l())
    with pytest.raises(KeyboardInterrupt), testbed:
        assert len(run_namespaces(testbed.run_id)) == 2
        raise KeyboardInterrupt
    assert not run_namespaces(testbed.run_id)
    assert not testbed.state_file.exists()


def test_two_testbeds_of_one_topology_do_not_collide(make_testbed: MakeTestbed) -> None:
    topology = topology_2n1l()
    first, second = make_testbed(topology), make_testbed(topology)
    with first, second:
        assert first.run_id != second.run_id
        assert not run_namespaces(first.run_id) & run_namespaces(second.run_id)
        assert set(links(first.namespace("TG"))) == set(links(second.namespace("TG")))
        second.teardown()
        assert len(run_namespaces(first.run_id)) == 2
        assert "tg-if1" in links(first.namespace("TG"))


def test_a_run_id_in_use_is_refused_and_the_live_run_kept(make_testbed: MakeTestbed) -> None:
    first = make_testbed(topology_2n1l(), run_id="fixed-id")
    with first:
        second = make_testbed(topology_2n1l(), run_id="fixed-id")
        with pytest.raises(LocalTestbedError, match=r"in use|exist"):
            second.setup()
        assert len(run_namespaces("fixed-id")) == 2
        assert first.state_file.exists()


def test_teardown_stops_processes_of_the_run(make_testbed: MakeTestbed) -> None:
    testbed = make_testbed(topology_2n1l())
    with testbed:
        tracked = testbed.access("DUT1").start(["sleep", "60"])
        finished = testbed.access("TG").start(["echo", "done"])
        state = json.loads(testbed.state_file.read_text())
        assert tracked.pid in [p["pid"] for p in state["processes"]]
        logs = [Path(log) for log in state["logs"]]
        assert len(logs) == 2
        assert all(log.exists() for log in logs)
        # a process started behind the testbed's back, in one of its namespaces
        stray = subprocess.Popen(["ip", "netns", "exec", testbed.namespace("TG"), "sleep", "60"])
        deadline = time.monotonic() + 5
        while stray.pid not in namespace_pids(testbed.namespace("TG")):
            assert time.monotonic() < deadline
            time.sleep(0.01)
    assert not tracked.is_running()
    assert finished.output() == "done\n"
    assert not any(log.exists() for log in logs)
    assert stray.wait(5) != 0
    assert not is_alive(tracked.pid)


def test_access_and_namespace_name_nodes(make_testbed: MakeTestbed) -> None:
    testbed = make_testbed(topology_2n1l())
    assert testbed.access("TG") is testbed.access("TG")
    assert testbed.access("TG").namespace == testbed.namespace("TG")
    with pytest.raises(LocalTestbedError, match="DUT9"):
        testbed.namespace("DUT9")
    with testbed:
        out = testbed.access("DUT1").run(["ip", "-j", "link", "show", "dut-if1"]).stdout
        assert json.loads(out)[0]["address"] == MACS[("DUT1", "port1")]


def test_tracked_paths_are_removed_by_teardown(make_testbed: MakeTestbed, tmp_path: Path) -> None:
    keep, gone = tmp_path / "keep", tmp_path / "gone"
    keep.mkdir()
    gone.mkdir()
    (gone / "file").write_text("x")
    with make_testbed(topology_2n1l()) as testbed:
        testbed.track_path(gone)
        testbed.track_path(keep)
        testbed.untrack_path(keep)
        assert str(gone) in json.loads(testbed.state_file.read_text())["paths"]
    assert keep.exists()
    assert not gone.exists()


def test_tracked_interfaces_are_deleted_by_teardown(make_testbed: MakeTestbed) -> None:
    # The root end of a veth into the run's DUT namespace: deleting it deletes the pair.
    name, other = f"ndt{secrets.token_hex(4)}", f"ndt{secrets.token_hex(4)}"
    with make_testbed(topology_2n1l()) as testbed:
        namespace = testbed.namespace("DUT1")
        testbed.track_interface(name)
        testbed.track_interface(other)  # recorded, then given up before it was made
        testbed.untrack_interface(other)
        subprocess.run(
            ["ip", "link", "add", name, "type", "veth", "peer", "name", "m0", "netns", namespace],
            check=True,
        )
        assert json.loads(testbed.state_file.read_text())["interfaces"] == [name]
        with pytest.raises(LocalTestbedError, match="not valid"):
            testbed.track_interface("x" * 16)
    assert not Path(f"/sys/class/net/{name}").exists()  # at once, not when the netns is freed


def test_setup_failure_on_a_mac_ip_refuses_leaves_nothing(make_testbed: MakeTestbed) -> None:
    testbed = make_testbed(topology_2n1l(macs={("DUT1", "port2"): "02:00:00:00:02:zz"}))
    with pytest.raises(LocalTestbedError, match="veth creation") as caught:
        testbed.setup()
    assert "02:00:00:00:02:zz" in str(caught.value)
    assert not run_namespaces(testbed.run_id)
    assert not testbed.state_file.exists()
    assert not testbed.is_set_up


@pytest.mark.parametrize("error", [RuntimeError("step failed"), KeyboardInterrupt()])
def test_setup_failure_half_way_leaves_nothing(
    make_testbed: MakeTestbed, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    real = plumbing.configure_namespace
    calls: list[str] = []

    def second_fails(setup: Any) -> None:
        calls.append(setup.namespace)
        if len(calls) == 2:
            assert len(run_namespaces(testbed.run_id)) == 2  # really half way
            raise error
        real(setup)

    monkeypatch.setattr(testbed_module, "configure_namespace", second_fails)
    testbed = make_testbed(topology_2n1l())
    with pytest.raises(type(error)):
        testbed.setup()
    assert len(calls) == 2
    assert not run_namespaces(testbed.run_id)
    assert not testbed.state_file.exists()


@pytest.fixture
def python_sigint() -> Iterator[None]:
    """Python's own SIGINT handler during the test, whatever the runner inherited.

    A runner started in the background by a shell script inherits SIGINT
    ignored, and Python keeps it so: Ctrl-C would then raise nothing.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("python_sigint")
def test_ctrl_c_during_teardown_is_held_until_it_is_done(
    make_testbed: MakeTestbed, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = plumbing.delete_namespaces

    def interrupted(namespaces: list[str]) -> list[str]:
        os.kill(os.getpid(), signal.SIGINT)  # arrives while teardown runs
        return real(namespaces)

    monkeypatch.setattr(testbed_module, "delete_namespaces", interrupted)
    testbed = make_testbed(topology_2n1l())
    testbed.setup()
    with pytest.raises(KeyboardInterrupt):
        testbed.teardown()
    assert not run_namespaces(testbed.run_id)
    assert not testbed.state_file.exists()
