"""VPP startup.conf and CLI commands of the lab path (DPDK plugin, PCI NICs): expected files.

Stand-in tests, for what cannot run here (the VPP of this machine has no
DPDK plugin and no NIC); the af_packet startup.conf and command lists run
against the real VPP in ``test_vpp_real.py``. The expected
files under ``expected/`` were written and reviewed by hand against VPP's
documented startup.conf sections (unix, cpu, buffers, dpdk, plugins) and
CLI commands (set interface state / ip address / l2 xconnect / mtu, set ip
neighbor, ip route add); ``vpp_tokens`` below reads a startup.conf the way
VPP's ``vpp -c`` does (whitespace-separated words, a word starting with
'#' ends the line) to check that the braces pair up and every section is
one VPP knows.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from example_topologies import filled
from ndrpdr.dut.base import DutError, DutTestConfig, ForwardingMode
from ndrpdr.dut.cores import UnsupportedCoresError, corelist
from ndrpdr.dut.plan import plan_dut, plan_duts
from ndrpdr.dut.vpp.config import (
    OPTION_KEYS,
    VppOptions,
    cli_commands,
    cli_error,
    parse_options,
    plugin_file,
)
from ndrpdr.dut.vpp.startup import startup_conf
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Node, Topology
from ndrpdr.topology.path import compute_path

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).resolve().parent / "expected"
#: startup.conf sections this generator may write (all documented VPP sections).
SECTIONS = {
    "unix", "api-segment", "socksvr", "memory", "statseg", "ip6", "cpu", "buffers", "dpdk",
    "plugins",
}  # fmt: skip


@pytest.fixture(scope="module")
def csit() -> Topology:
    return load_topology(filled("csit-2n-example.yaml"))


def dut(topology: Topology, **options: Any) -> Node:
    node = topology.duts[0]
    return dataclasses.replace(node, options=options) if options else node


def vpp_tokens(text: str) -> list[str]:
    """The words VPP reads from a startup.conf (comments dropped)."""
    words: list[str] = []
    for line in text.splitlines():
        for word in line.split():
            if word.startswith("#"):
                break
            words.append(word)
    return words


def check_structure(text: str) -> None:
    """Top-level words are known sections, each followed by a balanced { ... } block."""
    words = vpp_tokens(text)
    index = 0
    while index < len(words):
        assert words[index] in SECTIONS, words[index]
        assert words[index + 1] == "{", words[index : index + 2]
        depth = 0
        index += 1
        while True:
            depth += {"{": 1, "}": -1}.get(words[index], 0)
            index += 1
            if depth == 0:
                break
            assert index < len(words), "unbalanced braces"


# -- expected files -------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["ip4base", "l2xc"])
@pytest.mark.parametrize("cores", [1, 2])
def test_startup_conf_matches_the_expected_file(
    csit: Topology, mode: ForwardingMode, cores: int
) -> None:
    node = dut(csit)
    text = startup_conf(node, plan_dut(csit, mode, cores=cores), parse_options(node))
    assert text == (EXPECTED / f"vpp_startup_{mode}_{cores}c.conf").read_text()
    check_structure(text)


def test_startup_conf_with_options_and_jumbo_frames(csit: Topology) -> None:
    node = dut(
        csit,
        main_core=0,
        worker_cores=[7, 5, 9],
        rx_queues=1,
        buffers_per_numa=65536,
        log_file="/tmp/vpp/vpp.log",
        cli_socket="/run/vpp/cli-dut1.sock",
        plugins=["ping", "perfmon_plugin.so", "dpdk", "ping_plugin.so"],
    )
    config = plan_dut(csit, "l2xc", cores=2, max_frame_size_b=9000)
    text = startup_conf(node, config, parse_options(node))
    assert text == (EXPECTED / "vpp_startup_l2xc_2c_9000b_options.conf").read_text()
    assert "no-multi-seg" not in text  # jumbo frames need chained buffers
    check_structure(text)


@pytest.mark.parametrize(("mode", "frame", "name"), [
    ("ip4base", 1518, "vpp_cli_ip4base.txt"),
    ("l2xc", 1518, "vpp_cli_l2xc.txt"),
    ("l2xc", 9000, "vpp_cli_l2xc_9000b.txt"),
])  # fmt: skip
def test_cli_commands_match_the_expected_file(
    csit: Topology, mode: ForwardingMode, frame: int, name: str
) -> None:
    config = plan_dut(csit, mode, max_frame_size_b=frame)
    assert cli_commands(config) == (EXPECTED / name).read_text().splitlines()


def test_ip4base_uses_the_plan_addresses_and_tg_macs(csit: Topology) -> None:
    config = plan_dut(csit, "ip4base")
    commands = cli_commands(config)
    tg = csit.tg.interfaces
    for port, tg_port in zip(config.ports, ("port1", "port2"), strict=True):
        assert f"set ip neighbor {port.key} {port.peer_ip4} {tg[tg_port].mac_address} static" in (
            commands
        )
        assert f"ip route add {port.routed_prefix} via {port.peer_ip4} {port.key}" in commands


# -- options --------------------------------------------------------------------------


def test_defaults(csit: Topology) -> None:
    assert parse_options(dut(csit)) == VppOptions()
    assert OPTION_KEYS[0] == "service" and "start_timeout_s" in OPTION_KEYS


@pytest.mark.parametrize(("options", "field", "message"), [
    ({"servce": "direct"}, "servce",
     "unknown option \\(did you mean 'service'\\?\\); known: service, systemd_unit"),
    ({"service": "upstart"}, "service", "'upstart' is not one of systemd, direct"),
    ({"binary": "vpp"}, "binary", "'vpp' is not an absolute path"),
    ({"startup_conf": "/etc/vpp/my conf"}, "startup_conf",
     "'/etc/vpp/my conf' is not an absolute path"),
    ({"cli_socket": 5}, "cli_socket", "5 is not an absolute path"),
    ({"vppctl": "vppctl -s x"}, "vppctl", "'vppctl -s x' is not a command name"),
    ({"systemd_unit": "vpp service"}, "systemd_unit", "'vpp service' is not a systemd unit"),
    ({"start_timeout_s": 0}, "start_timeout_s", "0 is not a finite number > 0"),
    ({"start_timeout_s": True}, "start_timeout_s", "True is not a finite number > 0"),
    ({"main_core": -1}, "main_core", "-1 is not an integer >= 0"),
    ({"worker_cores": "2-3"}, "worker_cores", "'2-3' is not a list of integers"),
    ({"worker_cores": []}, "worker_cores", r"\[\] is empty"),
    ({"worker_cores": [2, 2]}, "worker_cores", r"\[2, 2\] lists an item twice"),
    ({"worker_cores": [1, 2]}, "worker_cores", r"\[1, 2\] holds the main core 1"),
    ({"rx_queues": 0}, "rx_queues", "0 is not an integer >= 1"),
    ({"buffers_per_numa": 1.5}, "buffers_per_numa", "1.5 is not an integer >= 1"),
    ({"no_multi_seg": "yes"}, "no_multi_seg", "'yes' is not true or false"),
    ({"plugins": "ping"}, "plugins", "'ping' is not a list of strings"),
    ({"plugins": ["../x"]}, "plugins", "item '../x' is not a plugin name"),
    ({"default_plugins": 1}, "default_plugins", "1 is not true or false"),
])  # fmt: skip
def test_bad_options_name_the_field(
    csit: Topology, options: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(DutError, match=rf"^DUT1 \(vpp\): nodes\.DUT1\.options\.{field}: {message}"):
        parse_options(dut(csit, **options))


def test_plugin_names() -> None:
    assert plugin_file("ping") == "ping_plugin.so"
    assert plugin_file("ping_plugin.so") == "ping_plugin.so"
    assert plugin_file("a b") is None and plugin_file("") is None


def test_default_plugins_enabled(csit: Topology) -> None:
    node = dut(csit, default_plugins=True)
    text = startup_conf(node, plan_dut(csit, "l2xc"), parse_options(node))
    assert "  plugin default { enable }\n" in text


# -- what the test asks -------------------------------------------------------------------


def test_too_few_worker_cores_for_the_test(csit: Topology) -> None:
    node = dut(csit, worker_cores=[4])
    with pytest.raises(
        UnsupportedCoresError,  # a skip, not a failure: the test is never run on fewer
        match=r"^DUT1 \(vpp\) needs 2 CPUs for 2 workers \(and one more for its main thread\), "
        r"and has 1 for workers \(options\.worker_cores: \[4\]\)$",
    ):
        startup_conf(node, plan_dut(csit, "l2xc", cores=2), parse_options(node))


def test_no_workers_leaves_forwarding_to_the_main_thread(csit: Topology) -> None:
    node = dut(csit)
    text = startup_conf(node, plan_dut(csit, "l2xc", cores=0), parse_options(node))
    assert "corelist-workers" not in text and "num-rx-queues 1" in text


def test_no_multi_seg_option(csit: Topology) -> None:
    off = dut(csit, no_multi_seg=False)
    text = startup_conf(off, plan_dut(csit, "l2xc"), parse_options(off))
    assert "no-multi-seg" not in text
    on = dut(csit, no_multi_seg=True)
    with pytest.raises(DutError, match=r"options\.no_multi_seg: true, but the test's frames reach"):
        startup_conf(on, plan_dut(csit, "l2xc", max_frame_size_b=9000), parse_options(on))


def test_uio_driver_comes_from_the_node_field(csit: Topology) -> None:
    node = dut(csit)
    without = dataclasses.replace(node, extra={})
    assert "uio-driver" not in startup_conf(without, plan_dut(csit, "l2xc"), VppOptions())
    bad = dataclasses.replace(node, extra={"uio_driver": "vfio pci"})
    with pytest.raises(DutError, match=r"DUT1 \(vpp\): nodes\.DUT1\.uio_driver: 'vfio pci'"):
        startup_conf(bad, plan_dut(csit, "l2xc"), VppOptions())


def _with_port(config: DutTestConfig, index: int, **changes: Any) -> DutTestConfig:
    ports = list(config.ports)
    ports[index] = dataclasses.replace(ports[index], **changes)
    return dataclasses.replace(config, ports=(ports[0], ports[1]))


@pytest.mark.parametrize(("changes", "message"), [
    ({"pci_address": None}, r"ports\[1\] \(port2\): no PCI address; .*"
                            r"add nodes\.DUT1\.interfaces\.port2\.pci_address"),
    ({"pci_address": "17:00.1"}, r"nodes\.DUT1\.interfaces\.port2\.pci_address '17:00.1' is not"),
    ({"pci_address": "0000:17:00.0"}, "both ports have PCI address 0000:17:00.0"),
    ({"name": "port 2"}, r"'port 2' cannot name a VPP interface"),
    ({"name": "port1"}, "both ports are named 'port1'"),
    ({"peer_ip4": "192.168.20"}, r"ports\[1\] \(port2\): .*192\.168\.20"),
    ({"peer_mac": "b4:96:91:00:00"}, "peer_mac 'b4:96:91:00:00' is not a MAC address"),
])  # fmt: skip
def test_unusable_ports_are_named(csit: Topology, changes: dict[str, Any], message: str) -> None:
    config = _with_port(plan_dut(csit, "ip4base"), 1, **changes)
    with pytest.raises(DutError, match=rf"^DUT1 \(vpp\): configure: .*{message}"):
        startup_conf(dut(csit), config, VppOptions())


def test_the_os_interface_name_names_the_vpp_interface(csit: Topology) -> None:
    config = _with_port(plan_dut(csit, "l2xc"), 0, name="xe0")
    assert "    name xe0\n" in startup_conf(dut(csit), config, VppOptions())
    assert "set interface l2 xconnect xe0 port2" in cli_commands(config)


# -- helpers --------------------------------------------------------------------------


def test_corelist() -> None:
    assert corelist([2]) == "2"
    assert corelist([2, 3]) == "2-3"
    assert corelist([7, 2, 3, 4, 9, 10]) == "2-4,7,9-10"


@pytest.mark.parametrize(("output", "found"), [
    ("", None),
    ("\n", None),
    ("unknown input `frobnicate'\n", "unknown input `frobnicate'"),
    ("set interface state: unknown interface `port9 up'\n",
     "set interface state: unknown interface `port9 up'"),
    ("set interface: unknown input `stat port1 up'",
     "set interface: unknown input `stat port1 up'"),
    ("error: interface port1 is in use\n", "error: interface port1 is in use"),
    ("Error: bad\n", "Error: bad"),
    ("vpp v24.02-release built by root on host at 2024-02-27T12:00:00\n", None),
    ("error-drop                       active   12   12   0   4.1e3   1.00\n", None),  # a node
])  # fmt: skip
def test_cli_error(output: str, found: str | None) -> None:
    assert cli_error("set interface state port9 up", output) == found


@pytest.mark.parametrize("mode", ["ip4base", "l2xc"])
def test_three_node_chain_goes_through_the_dut_to_dut_link(mode: ForwardingMode) -> None:
    """3n-trex-vpp.yaml.example: each VPP routes (or cross-connects) towards its next hop."""
    topology = load_topology(filled("3n-trex-vpp.yaml.example"))
    configs = plan_duts(topology, compute_path(topology), mode)
    dut1, dut2 = cli_commands(configs["DUT1"]), cli_commands(configs["DUT2"])
    if mode == "l2xc":
        assert "set interface l2 xconnect port1 port2" in dut1
        assert "set interface l2 xconnect port2 port1" in dut2
        return
    mac = {
        (node.key, key): iface.mac_address
        for node in topology.nodes.values()
        for key, iface in node.interfaces.items()
    }
    assert dut1[2:] == [
        "set interface ip address port1 192.168.10.1/24",
        "set interface ip address port2 192.168.101.1/24",
        f"set ip neighbor port1 192.168.10.2 {mac[('TG', 'port1')]} static",
        f"set ip neighbor port2 192.168.101.2 {mac[('DUT2', 'port1')]} static",
        "ip route add 198.18.0.0/24 via 192.168.10.2 port1",
        "ip route add 198.18.1.0/24 via 192.168.101.2 port2",
    ]
    assert dut2[2:] == [
        "set interface ip address port1 192.168.101.2/24",
        "set interface ip address port2 192.168.20.1/24",
        f"set ip neighbor port1 192.168.101.1 {mac[('DUT1', 'port2')]} static",
        f"set ip neighbor port2 192.168.20.2 {mac[('TG', 'port2')]} static",
        "ip route add 198.18.0.0/24 via 192.168.101.1 port1",
        "ip route add 198.18.1.0/24 via 192.168.20.2 port2",
    ]


def test_af_packet_ports_need_the_driver_to_run_vpp(csit: Topology) -> None:
    with pytest.raises(DutError, match=r"options.service: 'systemd': with port_kind af_packet"):
        parse_options(dut(csit, port_kind="af_packet"))
    options = parse_options(dut(csit, port_kind="af_packet", service="direct"))
    assert options.cpu == 1 and options.run_dir is None


def test_linux_interface_port_kinds_give_their_drv_tag_and_plugin() -> None:
    """af_packet / af_xdp: CSIT's DRV_* tag names the kind; startup.conf loads its plugin only."""
    from ndrpdr.dut.vpp.afpacket import VppRunPaths
    from ndrpdr.dut.vpp.afpacket import startup_conf as linux_startup_conf
    from ndrpdr.dut.vpp.driver import DESCRIPTION

    local = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    assert DESCRIPTION.port_driver is not None
    for kind, plugin, other in (
        ("af_packet", "af_packet_plugin.so", "af_xdp_plugin.so"),
        ("af_xdp", "af_xdp_plugin.so", "af_packet_plugin.so"),
    ):
        node = dut(local, port_kind=kind, service="direct")
        assert DESCRIPTION.port_driver(node) == kind
        config = plan_dut(local, "l2xc")
        text = linux_startup_conf(node, config, parse_options(node), VppRunPaths("/tmp/x"))
        assert f"plugin {plugin} {{ enable }}" in text and other not in text
        assert f"({kind} ports)" in text
    with pytest.raises(DutError, match=r"options.service: 'systemd': with port_kind af_xdp"):
        parse_options(dut(local, port_kind="af_xdp"))
