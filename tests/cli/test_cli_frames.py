"""``ndrpdr frames``: the first N frames a field engine sends, written to a pcap and read back.

Run through ``main(argv)`` in this process (the ``cli`` fixture). The pcap
is read back with ``read_pcap`` and dissected with scapy, so each test
checks what a user opening it in Wireshark sees: how many frames, in which
order (CSIT's ``ethip4-ip4base`` steps the source address over 253 hosts,
one a frame), their sizes (IMIX's cycle) and MACs. Every bad option exits 2
with one line naming it and writes nothing; an unwritable file exits 1.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from cli_helpers import CliCall
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from ndrpdr.cli.frames_cmd import DUT_MACS, MAX_COUNT, TG_MACS
from ndrpdr.families import profile_of
from ndrpdr.profiles import FCS_SIZE, IMIX_SEQUENCE, read_pcap, stream_frames
from ndrpdr.profiles.headerline import header_line

UDIR = "ethip4udp-nat44ed-h65536-p63-s4128768-udir"
STATEFUL = "ethip4tcp-ip4base-h65536-p63-s4128768-cps"


def _write(cli: CliCall, pcap: Path, *args: str) -> list[Ether]:
    """Run ``ndrpdr frames ARGS --pcap PCAP``; the frames read back, dissected."""
    run = cli("frames", *args, "--pcap", str(pcap))
    assert (run.returncode, run.stderr) == (0, ""), run.stderr
    return [Ether(frame) for frame in read_pcap(pcap)]


def test_ip4base_frames_step_the_source_over_csits_253_hosts(cli: CliCall, tmp_path: Path) -> None:
    """300 frames: sources 198.18.0.2 .. .254 one a frame, then again from .2 (253 values)."""
    pcap = tmp_path / "ip4base.pcap"
    run = cli("frames", "--profile", "ethip4-ip4base", "--count", "300", "--pcap", str(pcap))
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"wrote 300 frame(s) of ethip4-ip4base, 64B, direction 0 to {pcap}\n"
    frames = [Ether(frame) for frame in read_pcap(pcap)]
    assert len(frames) == 300
    first = ipaddress.IPv4Address("198.18.0.2")
    sources = [ipaddress.IPv4Address(frame[IP].src) for frame in frames]
    assert sources == [first + k % 253 for k in range(300)]
    assert {frame[IP].dst for frame in frames} == {"198.18.1.2"}
    assert {len(frame) + FCS_SIZE for frame in frames} == {64}
    # The defaults: sim.yaml's TG port 1 sends to DUT port 1.
    assert {(frame.src, frame.dst) for frame in frames} == {(TG_MACS[0], DUT_MACS[0])}


def test_the_frames_are_the_field_engines_stream(cli: CliCall, tmp_path: Path) -> None:
    """Byte for byte what stream_frames gives (direction 1, 1518 B), so TRex comparisons hold."""
    pcap = tmp_path / "ip6.pcap"
    _write(cli, pcap, "--profile", "ethip6-ip6base", "--frame-size", "1518", "--direction", "1",
           "--count", "5")  # fmt: skip
    expected = stream_frames(profile_of("ethip6-ip6base"), 1518, 1, TG_MACS[1], DUT_MACS[1], 5)
    assert read_pcap(pcap) == expected


def test_imix_frames_cycle_through_imixs_sizes(cli: CliCall, tmp_path: Path) -> None:
    count = 2 * len(IMIX_SEQUENCE) + 5
    frames = _write(
        cli, tmp_path / "imix.pcap", "--profile", "ethip4-ip4base", "--frame-size", "IMIX",
        "--count", str(count),
    )  # fmt: skip
    sizes = [len(frame) + FCS_SIZE for frame in frames]
    assert sizes == [IMIX_SEQUENCE[k % len(IMIX_SEQUENCE)] for k in range(count)]
    assert {64, 570, 1518} == set(sizes)


def test_the_mac_options_address_the_frames(cli: CliCall, tmp_path: Path) -> None:
    frames = _write(
        cli, tmp_path / "macs.pcap", "--profile", "ethip4-ip4base", "--count", "3",
        "--src-mac", "0A:00:00:00:00:0A", "--dst-mac", "0a:00:00:00:00:0b",
    )  # fmt: skip
    assert {(frame.src, frame.dst) for frame in frames} == {
        ("0a:00:00:00:00:0a", "0a:00:00:00:00:0b")
    }


def test_an_l2_familys_frames_go_to_the_far_tg_port(cli: CliCall, tmp_path: Path) -> None:
    frames = _write(
        cli, tmp_path / "l2.pcap", "--profile", "eth-l2xcbase", "--direction", "1", "--count", "2"
    )
    assert {(frame.src, frame.dst) for frame in frames} == {(TG_MACS[1], TG_MACS[0])}


def test_a_familys_own_macs_override_the_options(cli: CliCall, tmp_path: Path) -> None:
    """eth-l2bdscale10kmaclrn sends from and to its own MACs whatever --src-mac says."""
    args = ("--profile", "eth-l2bdscale10kmaclrn", "--count", "4")
    plain = _write(cli, tmp_path / "plain.pcap", *args)
    given = _write(cli, tmp_path / "given.pcap", *args, "--src-mac", "0a:00:00:00:00:0a")
    assert [(f.src, f.dst) for f in given] == [(f.src, f.dst) for f in plain]
    assert "0a:00:00:00:00:0a" not in {f.src for f in given}
    assert len({f.src for f in given}) == 4  # the family varies its MACs, one a frame


def test_a_unidirectional_family_writes_direction_0(cli: CliCall, tmp_path: Path) -> None:
    frames = _write(cli, tmp_path / "udir.pcap", "--profile", UDIR, "--count", "64")
    assert len(frames) == 64
    assert len({(frame[IP].src, frame[IP].dst, frame.sport) for frame in frames}) == 64


@pytest.mark.parametrize(
    ("family", "direction", "shown"),
    [
        ("ethip4-ip4base", "0", "/ IPv4 198.18.0.3 > 198.18.1.2 proto 61"),
        ("dot1q-l2bdbasemaclrn", "0", "/ 802.1Q vlan 100 / IPv4 "),
        ("ethip4--ethip4udpgeneve-4tun-ip4base", "1", "/ UDP 1025 > 6081 / GENEVE vni 1 / Ether "),
    ],
)
def test_show_prints_each_frames_headers(
    cli: CliCall, tmp_path: Path, family: str, direction: str, shown: str
) -> None:
    """--show 3: after the 'wrote' line, frame k's number, size and headers, as read back."""
    pcap = tmp_path / "show.pcap"
    args = ("--profile", family, "--direction", direction, "--count", "5", "--show", "3")
    run = cli("frames", *args, "--pcap", str(pcap))
    assert run.returncode == 0, run.stderr
    wrote, *lines = run.stdout.splitlines()
    assert wrote.startswith("wrote 5 frame(s) of ")
    frames = read_pcap(pcap)
    assert lines == [
        f"{k:>6}  {len(frame) + FCS_SIZE:>5} B  {header_line(frame)}"
        for k, frame in enumerate(frames[:3])
    ]
    assert shown in lines[1]


def test_header_line_says_the_outer_and_inner_headers() -> None:
    frame = stream_frames(
        profile_of("ethip4--ethip4udpgeneve-4tun-ip4base"), 64, 1, TG_MACS[1], DUT_MACS[1], 1
    )[0]
    words = header_line(frame).split(" / ")
    assert [word.split()[0] for word in words] == [
        "Ether",
        "IPv4",
        "UDP",
        "GENEVE",
        "Ether",
        "IPv4",
    ]
    assert words[0] == f"Ether {TG_MACS[1]} > {DUT_MACS[1]}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--profile", "ethip7-ip7base"], "--profile ethip7-ip7base: test family 'ethip7-ip7base' "
         "is not known: give one of"),
        (["--profile", UDIR, "--direction", "1"], f"--direction 1: family {UDIR} is "
         "unidirectional: it sends direction 0 only"),
        (["--profile", STATEFUL], f"--profile {STATEFUL}: a stateful family (TRex ASTF, tcp_cps) "
         "sends connections, not a stream of frames"),
        (["--count", "0"], f"--count 0: give 1..{MAX_COUNT} frames"),
        (["--count", str(MAX_COUNT + 1)], f"--count {MAX_COUNT + 1}: give 1..{MAX_COUNT} frames"),
        (["--count", "40000", "--frame-size", "9000"], "--count 40000: 40000 frames of 9000 B "
         "are more than 256 MiB; give at most 29826"),
        (["--frame-size", "10"], "--frame-size 10: frame size '10' is out of range"),
        (["--profile", "ethip6-ip6base"], "--frame-size 64: profile ethip6-ip6base: frame size "
         "64 B is below its minimum 78 B"),
        (["--flows", "10"], "--flows 10: traffic profile ethip4-ip4base has 253 flow(s)"),
        (["--show", "-1"], "--show -1: give 0 or more frames"),
        (["--direction", "2"], "argument --direction: invalid choice: 2"),
        (["--src-mac", "02:00:00:00:01"], "argument --src-mac: '02:00:00:00:01' is not a MAC"),
        (["--dst-mac", "zz:00:00:00:00:01"], "argument --dst-mac: 'zz:00:00:00:00:01' is not a"),
    ],
)  # fmt: skip
def test_a_bad_option_is_named_in_one_line(
    cli: CliCall, tmp_path: Path, args: list[str], message: str
) -> None:
    """Exit 2, ``ndrpdr frames: error: OPTION VALUE: ...`` (argparse's own for a type or
    choice), no traceback, no pcap written."""
    pcap = tmp_path / "bad.pcap"
    pairs = zip(args[::2], args[1::2], strict=True)
    given = {"--profile": "ethip4-ip4base", "--count": "3", **dict(pairs)}
    run = cli("frames", *[part for item in given.items() for part in item], "--pcap", str(pcap))
    assert run.returncode == 2
    assert run.stdout == ""
    errors = [line for line in run.stderr.splitlines() if line.startswith("ndrpdr frames: ")]
    assert errors == [
        line for line in run.stderr.splitlines() if not line.startswith(("usage", " "))
    ]
    assert len(errors) == 1 and errors[0].startswith(f"ndrpdr frames: error: {message}"), run.stderr
    assert "Traceback" not in run.stderr
    assert not pcap.exists()


@pytest.mark.parametrize("where", ["missing/dir/out.pcap", "."], ids=["no-directory", "a-dir"])
def test_an_unwritable_pcap_path_is_named(cli: CliCall, tmp_path: Path, where: str) -> None:
    path = tmp_path / where
    run = cli("frames", "--profile", "ethip4-ip4base", "--count", "3", "--pcap", str(path))
    assert run.returncode == 1
    assert run.stdout == ""
    assert run.stderr.startswith(f"ndrpdr frames: {path}: cannot write the pcap file: ")
    assert len(run.stderr.splitlines()) == 1


@pytest.mark.parametrize("family", [UDIR, "ethip4udp-nat44det-h65536-p63-s4128758"])
def test_nat44_frames_step_the_inside_host_every_frame_as_csits(
    cli: CliCall, tmp_path: Path, family: str
) -> None:
    """CSIT's 65536u63p order: the host every frame, the port only when the hosts wrap.

    Over the first 70 frames the source address steps by one a frame from
    192.168.0.0 with UDP source port 1024 throughout; the udir profile's
    destination 20.0.0.0 steps with it (host i talks to destination i), det44's stays.
    """
    frames = _write(cli, tmp_path / "nat.pcap", "--profile", family, "--count", "70")
    sources = [ipaddress.IPv4Address(frame[IP].src) for frame in frames]
    assert sources == [ipaddress.IPv4Address("192.168.0.0") + k for k in range(70)]
    assert {frame[UDP].sport for frame in frames} == {1024}
    destinations = [ipaddress.IPv4Address(frame[IP].dst) for frame in frames]
    first = ipaddress.IPv4Address("20.0.0.0")
    assert destinations == [first + (k if family == UDIR else 0) for k in range(70)]
