"""The vpp driver with a family's set-up, against a recording node access (the lab path).

What only a lab VPP (DPDK plugin, systemd) does is checked here: the
family's plugins are checked in ``show plugins`` before its commands, the
commands are the family's, the set-up time reaches telemetry, and an IPv6
set-up waits out VPP's MLD reports. The same on the real VPP:
``test_vpp_families_real.py``.
"""

from __future__ import annotations

import dataclasses

import pytest
from test_vpp_driver import VERSION, Clock, RecordingAccess, make, port_checked, vppctl

from example_topologies import filled
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.vpp.config import interface_name
from ndrpdr.families import get_family
from ndrpdr.families.vppip import MLD_SETTLE_S
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology

PLUGINS = """ Plugin path is: /usr/lib/x86_64-linux-gnu/vpp_plugins, plugins shown in load order

     Plugin                                   Version                          Description
  1. dpdk_plugin.so                           24.02-release                    DPDK plugin
  2. {extra}                           24.02-release                    something
"""


@pytest.fixture(scope="module")
def csit() -> Topology:
    return load_topology(filled("csit-2n-example.yaml"))


def family_config(topology: Topology, family_id: str) -> DutTestConfig:
    family = get_family(family_id)
    base = "l2xc" if family.profile.layer == "L2" else "ip4base"
    return dataclasses.replace(plan_dut(topology, base), family=family.setup)


def test_a_family_plugin_vpp_has_not_loaded_fails_before_any_set_up(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    access.script(vppctl("show plugins"), (0, PLUGINS.format(extra="ping_plugin.so"), ""))
    driver = make(csit, access, clock)
    config = family_config(csit, "ethip4udp-ip4base-oacl50sl-10kflows")
    driver.configure(config)
    assert "plugin acl_plugin.so { enable }" in driver.startup_conf_text
    driver.start()
    access.calls.clear()
    with pytest.raises(DutError) as raised:
        driver.health_check()
    assert str(raised.value).startswith(
        "DUT1 (vpp): set up ethip4udp-ip4base-oacl50sl-10kflows: family "
        "ethip4udp-ip4base-oacl50sl-10kflows needs the VPP plugin(s) acl (acl_plugin.so), "
        "which this VPP has not loaded: install acl_plugin.so in its plugin directory "
        "(/usr/lib/x86_64-linux-gnu/vpp_plugins) and check startup.conf enables it"
    ), raised.value
    assert access.calls == [vppctl("show version"), vppctl("show plugins")]  # nothing set up


def test_a_loaded_plugin_lets_the_family_set_up_and_times_it(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    access.script(vppctl("show plugins"), (0, PLUGINS.format(extra="acl_plugin.so "), ""))
    driver = make(csit, access, clock)
    config = family_config(csit, "ethip4udp-ip4base-iacl50sf-10kflows")
    driver.configure(config)
    driver.start()
    access.calls.clear()
    driver.health_check()
    family = get_family("ethip4udp-ip4base-iacl50sf-10kflows").setup.vpp
    assert family is not None
    names = (interface_name(config.ports[0]), interface_name(config.ports[1]))
    placement = [  # each port's RX queue on the one worker (ndrpdr.dut.vpp.queues)
        f"set interface rx-placement {name} queue 0 worker 0" for name in names
    ]
    commands = [*family.commands(config, names), *placement]
    assert port_checked(access.calls) == [
        vppctl("show version"),
        vppctl("show plugins"),
        *(vppctl(line) for line in commands),
    ]
    assert driver.telemetry()["setup_time"] == f"{len(commands)} vppctl commands in 0.000 s"
    assert clock.sleeps == []


def test_a_family_without_plugins_asks_vpp_nothing_more(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    driver = make(csit, access, clock)
    driver.configure(family_config(csit, "eth-l2patch"))
    driver.start()
    access.calls.clear()
    driver.health_check()
    assert vppctl("show plugins") not in access.calls
    assert vppctl("test l2patch rx port1 tx port2") in access.calls


def test_an_ipv6_set_up_waits_out_vpps_mld_reports(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    driver = make(csit, access, clock)
    driver.configure(family_config(csit, "ethip6-ip6base"))
    driver.start()
    driver.health_check()
    assert clock.sleeps == [MLD_SETTLE_S]
    assert vppctl("ip6 nd port1 ra-suppress") in access.calls
