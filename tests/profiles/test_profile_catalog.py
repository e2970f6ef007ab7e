"""The profile catalog and the addressing plan."""

from __future__ import annotations

import dataclasses
import ipaddress

import pytest

from ndrpdr.profiles import (
    BENCHMARK_RANGE,
    DEFAULT_FLOWS,
    DIRECTION_PREFIXES,
    MAX_FLOWS,
    PROFILE_NAMES,
    Profile,
    ProfileError,
    flow,
    flows,
    get_profile,
)


def test_catalog() -> None:
    assert PROFILE_NAMES == ("ethip4-ip4base", "ethip4udp-ip4base", "eth-l2xcbase")
    for name in PROFILE_NAMES:
        profile = get_profile(name)
        assert profile.name == name
        assert profile.description
    assert get_profile("ethip4-ip4base").layer == "L3"
    assert get_profile("ethip4-ip4base").flows_per_direction == 1
    assert get_profile("eth-l2xcbase").layer == "L2"
    assert get_profile("ethip4udp-ip4base").flows_per_direction == DEFAULT_FLOWS == 1024
    assert get_profile(" EthIP4-IP4Base ").name == "ethip4-ip4base"


def test_profile_is_frozen() -> None:
    profile = get_profile("ethip4-ip4base")
    with pytest.raises(dataclasses.FrozenInstanceError):
        profile.flows_per_direction = 2  # type: ignore[misc]


def test_flows_setting() -> None:
    profile = get_profile("ethip4udp-ip4base", flows=4096)
    assert profile.flows_per_direction == 4096
    assert get_profile("ethip4udp-ip4base", flows=1).flows_per_direction == 1
    assert get_profile("ethip4-ip4base", flows=1).flows_per_direction == 1
    assert get_profile("ethip4udp-ip4base", flows=MAX_FLOWS).flows_per_direction == MAX_FLOWS


def test_unknown_profile() -> None:
    with pytest.raises(ProfileError, match=r"'ethip6-ip6base' is not known.*ethip4-ip4base"):
        get_profile("ethip6-ip6base")


@pytest.mark.parametrize("flows_", [0, -1, MAX_FLOWS + 1, True, 2.0])
def test_bad_flow_count(flows_: object) -> None:
    with pytest.raises(ProfileError, match=f"flow count {flows_!r}"):
        get_profile("ethip4udp-ip4base", flows=flows_)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["ethip4-ip4base", "eth-l2xcbase"])
def test_single_flow_profiles_refuse_flows(name: str) -> None:
    with pytest.raises(ProfileError, match=f"{name} has one flow per direction; got flows=8"):
        get_profile(name, flows=8)


def test_profile_validation() -> None:
    with pytest.raises(ProfileError, match="layer 'L4'"):
        Profile(name="x", description="x", layer="L4")  # type: ignore[arg-type]
    with pytest.raises(ProfileError, match="one flow per direction"):
        Profile(name="x", description="x", layer="L3", flows_per_direction=2)


def test_direction_prefixes() -> None:
    assert DIRECTION_PREFIXES == ("198.18.0.0/24", "198.18.1.0/24")
    bench = ipaddress.IPv4Network(BENCHMARK_RANGE)
    for prefix in DIRECTION_PREFIXES:
        assert ipaddress.IPv4Network(prefix).subnet_of(bench)


def test_flow_addresses() -> None:
    assert flow(0, 0) == flow(0, 0)
    f0 = flow(0, 0)
    assert (f0.src_ip, f0.dst_ip, f0.src_port, f0.dst_port) == (
        "198.18.0.1",
        "198.18.1.1",
        1024,
        1024,
    )
    f1 = flow(1, 0)
    assert (f1.src_ip, f1.dst_ip) == ("198.18.1.1", "198.18.0.1")
    assert flow(0, 253).src_ip == "198.18.0.254"
    assert flow(0, 254).src_ip == "198.18.0.1"
    assert flow(1, MAX_FLOWS - 1).src_port == 65535


@pytest.mark.parametrize("direction", [0, 1])
def test_flows_are_distinct_and_in_prefix(direction: int) -> None:
    items = flows(direction, 4096)
    assert len({(f.src_ip, f.src_port) for f in items}) == 4096
    assert len({f.src_ip for f in items}) == 254
    src_net = ipaddress.IPv4Network(DIRECTION_PREFIXES[direction])
    dst_net = ipaddress.IPv4Network(DIRECTION_PREFIXES[1 - direction])
    for f in items:
        src = ipaddress.IPv4Address(f.src_ip)
        assert src in src_net and src not in (src_net.network_address, src_net.broadcast_address)
        assert ipaddress.IPv4Address(f.dst_ip) in dst_net


@pytest.mark.parametrize("direction", [2, -1, True, "0"])
def test_bad_direction(direction: object) -> None:
    with pytest.raises(ProfileError, match=f"direction {direction!r}"):
        flow(direction, 0)  # type: ignore[arg-type]


@pytest.mark.parametrize("index", [-1, MAX_FLOWS, 1.0])
def test_bad_flow_index(index: object) -> None:
    with pytest.raises(ProfileError, match=f"flow index {index!r}"):
        flow(0, index)  # type: ignore[arg-type]


def test_import_is_light() -> None:
    """Importing the profiles and units does not import scapy (it is loaded on first build)."""
    import subprocess
    import sys

    code = "import sys, ndrpdr.profiles, ndrpdr.units; print('scapy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
