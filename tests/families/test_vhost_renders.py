"""The vhost families' set-ups and their guest's command lines against FD.io CSIT's (no VPP).

The DUT's lines come from a 2-node plan of topologies/local-vpp.yaml (as
the memif families' tests); the guest's command lines from a GuestPlan of
a fake node: CSIT's VM on CPUs 4 (main) and 5, 6, 17, 18 (a 2c test with
SMT), two queues per port. The expected values are CSIT's
(``QemuManager._c_default``, ``QemuUtils``, ``DpdkUtil``, the VM
templates, ``VhostUser``); a real VPP, QEMU and VM cannot run here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from example_topologies import filled
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.guest import qemu, testpmd, vpp
from ndrpdr.dut.guest.plan import GuestPlan, QemuImage
from ndrpdr.dut.guest.run import guest_argv, guest_files, vhost_up
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.smt import ThreadPlan, Worker
from ndrpdr.dut.vpp.config import parse_options
from ndrpdr.dut.vpp.family import guest, guest_commands, needs_fresh_vpp
from ndrpdr.families import get_family
from ndrpdr.families.kinds.vhost.vpp import SOCKETS, VHOSTS
from ndrpdr.topology.errors import TopologyError
from ndrpdr.topology.loader import load_topology

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("host-a", "host-b")
L2XC, L2BD = "eth-l2xcbase-eth-2vhostvr1024-1vm", "eth-l2bdbasemaclrn-eth-2vhostvr1024-1vm"
IP4 = "ethip4-ip4base-eth-2vhostvr1024-1vm-vppip4"
FAMILIES = (L2XC, L2BD, f"{L2XC}-vppl2xc", f"{L2BD}-vppl2xc", IP4)
RUN = "/var/tmp/ndrpdr-guest-feed0001"
#: CSIT's VM of a 2c test on a node with SMT: main thread, then two cores' both threads.
THREADS = ThreadPlan(4, tuple(Worker(c, c % 12, c // 12) for c in (5, 6, 17, 18)), True, 2)


def config(family: str) -> DutTestConfig:
    topology = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    return dataclasses.replace(plan_dut(topology, "ip4base"), family=get_family(family).setup)


def render(family: str) -> list[str]:
    setup = get_family(family).setup.vpp
    assert setup is not None
    return setup.commands(config(family), NAMES)


def plan(vnf: str = "testpmd_io", **changes: object) -> GuestPlan:
    lines = tuple(guest_commands(config(IP4))) if vnf == "vppip4noarp" else ()
    base = GuestPlan(vnf, THREADS, 2, RUN, lines, "dpdk-testpmd", hugepages=True)
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


# -- the DUT's VPP ----------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_the_dut_is_the_vhost_user_client_of_two_sockets_as_csit(family: str) -> None:
    lines = render(family)
    # CSIT's create_vhost_user_if_v2: is_server False, GSO off; no packed ring, no event-idx
    assert lines[:2] == [f"create vhost-user socket {RUN_DIR}" for RUN_DIR in SOCKETS]
    assert SOCKETS == ("{guest_dir}/sock-1-1", "{guest_dir}/sock-1-2")
    for name in (*NAMES, *VHOSTS):
        assert f"set interface state {name} up" in lines
    cfg = config(family)
    assert needs_fresh_vpp(cfg)  # vhost names count from 0 in a fresh VPP
    assert get_family(family).setup.vpp.plugins == ("vhost",)  # type: ignore[union-attr]
    assert get_family(family).duts == (1,)  # CSIT has them on 2n1l only


def test_l2xc_connects_port1_to_vhost1_and_vhost2_to_port2_both_ways() -> None:
    xconnects = [line.split()[-2:] for line in render(L2XC) if " l2 xconnect " in line]
    assert sorted(xconnects) == sorted(
        [[NAMES[0], VHOSTS[0]], [VHOSTS[0], NAMES[0]], [VHOSTS[1], NAMES[1]], [NAMES[1], VHOSTS[1]]]
    )


def test_l2bd_puts_each_side_in_its_own_learning_bridge() -> None:
    lines = render(L2BD)
    assert [line for line in lines if " l2 bridge " in line] == [
        f"set interface l2 bridge {NAMES[0]} 1", f"set interface l2 bridge {VHOSTS[0]} 1",
        f"set interface l2 bridge {VHOSTS[1]} 2", f"set interface l2 bridge {NAMES[1]} 2",
    ]  # fmt: skip
    assert not any("learn" in line for line in lines)  # VPP's bridges learn by default


def test_ip4_routes_each_side_in_csits_vrfs_via_the_guest() -> None:
    lines = render(IP4)
    for line in (
        "ip table add 101", "ip table add 102",
        f"set interface ip table {NAMES[0]} 101", f"set interface ip table {VHOSTS[0]} 101",
        f"set interface ip table {VHOSTS[1]} 102", f"set interface ip table {NAMES[1]} 102",
        f"set interface ip address {VHOSTS[0]} 1.1.1.2/30",
        f"set interface ip address {VHOSTS[1]} 1.1.2.2/30",
        f"ip route add table 101 198.18.0.0/24 via 192.168.10.2 {NAMES[0]}",
        f"ip route add table 101 198.18.1.0/24 via 1.1.1.1 {VHOSTS[0]}",
        f"ip route add table 102 198.18.1.0/24 via 192.168.20.2 {NAMES[1]}",
        f"ip route add table 102 198.18.0.0/24 via 1.1.2.1 {VHOSTS[1]}",
        f"set ip neighbor {NAMES[0]} 192.168.10.2 02:00:00:00:01:01 static",
    ):  # fmt: skip
        assert line in lines, line
    assert not any(f"neighbor {name}" in line for line in lines for name in VHOSTS)  # ARP


def test_a_port_without_a_routed_prefix_names_it() -> None:
    cfg = config(IP4)
    port = dataclasses.replace(cfg.ports[1], routed_prefix="")
    setup = get_family(IP4).setup.vpp
    assert setup is not None
    with pytest.raises(DutError, match="port port2 has no routed prefix"):
        setup.commands(dataclasses.replace(cfg, ports=(cfg.ports[0], port)), NAMES)


# -- the guest's VPP lines ---------------------------------------------------------------


@pytest.mark.parametrize(("family", "vnf"), [
    (L2XC, "testpmd_io"), (L2BD, "testpmd_io"), (f"{L2XC}-vppl2xc", "vppl2xc"),
    (f"{L2BD}-vppl2xc", "vppl2xc"), (IP4, "vppip4noarp"),
])  # fmt: skip
def test_each_family_names_csits_vnf(family: str, vnf: str) -> None:
    assert guest(config(family)) == vnf
    assert bool(guest_commands(config(family))) == (vnf != "testpmd_io")


def test_the_vppl2xc_guest_cross_connects_its_two_ports() -> None:
    assert guest_commands(config(f"{L2XC}-vppl2xc")) == (
        "set interface state VirtioUser0 up", "set interface state VirtioUser1 up",
        "set interface l2 xconnect VirtioUser0 VirtioUser1",
        "set interface l2 xconnect VirtioUser1 VirtioUser0",
    )  # fmt: skip


def test_the_vppip4_guest_routes_each_prefix_back_to_the_duts_vhost() -> None:
    assert guest_commands(config(IP4))[2:] == (
        "set interface ip address VirtioUser0 1.1.1.1/30",
        "set interface ip address VirtioUser1 1.1.2.1/30",
        "ip route add 198.18.0.0/24 via 1.1.1.2 VirtioUser0",
        "ip route add 198.18.1.0/24 via 1.1.2.2 VirtioUser1",
    )


# -- the guest's command lines -----------------------------------------------------------


def test_the_testpmd_stand_in_is_csits_testpmd_io_on_virtio_user() -> None:
    argv = guest_argv(plan())
    assert argv[:4] == ["dpdk-testpmd", "-v", "--lcores", "0@4,1@5,2@6,3@17,4@18"]
    assert "--in-memory" in argv and "--no-pci" in argv and "--no-huge" not in argv
    vdevs = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--vdev"]
    assert vdevs == [
        f"virtio_user0,path={RUN}/sock-1-1,server=1,queue_size=1024,queues=2",
        f"virtio_user1,path={RUN}/sock-1-2,server=1,queue_size=1024,queues=2",
    ]
    pmd = argv[argv.index("--") + 1 :]
    for arg in (
        "--forward-mode=io", "--burst=64", "--txd=1024", "--rxd=1024", "--txq=2", "--rxq=2",
        "--tx-offloads=0x0", "--total-num-mbufs=32768", "--nb-ports=2", "--portmask=0x3",
        "--disable-link-check", "--max-pkt-len=1800", "--mbuf-size=16384", "--nb-cores=4",
        "--auto-start",
    ):  # fmt: skip
        assert arg in pmd, arg


def test_without_hugepages_the_stand_in_takes_malloc_memory_and_a_prefix_of_its_own() -> None:
    argv = testpmd.stand_in_argv(plan(hugepages=False, jumbo=True))
    assert "--in-memory" not in argv
    at = argv.index("--no-huge")
    assert argv[at : at + 5] == [
        "--no-huge",
        "-m",
        "1024",
        "--file-prefix",
        "ndrpdr-guest-feed0001",
    ]
    assert "--max-pkt-len=9145" in argv  # CSIT's MTU_JUMBO


def test_the_vpp_stand_in_runs_csits_vm_vpp_on_virtio_user() -> None:
    guest_plan = plan("vppip4noarp", program="/usr/bin/vpp")
    assert guest_argv(guest_plan) == ["/usr/bin/vpp", "-c", f"{RUN}/guest-startup.conf"]
    files = guest_files(guest_plan)
    text = files[f"{RUN}/guest-startup.conf"][0]
    for line in (
        "  main-core 4", "  corelist-workers 5-6,17-18", f"  exec {RUN}/guest-running.exec",
        "  no-pci", "  file-prefix ndrpdr-guest-feed0001", "  dev default { num-rx-queues 2 }",
        "  no-multi-seg", "  no-tx-checksum-offload", "buffers { buffers-per-numa 107520 }",
        "memory { main-heap-size 512M }", "  plugin default { disable }",
        "  plugin dpdk_plugin.so { enable }", "  plugin ping_plugin.so { enable }",
        f"  vdev virtio_user0,path={RUN}/sock-1-1,server=1,queue_size=1024,queues=2",
        "api-segment { prefix ndrpdr-guest-feed0001 }",
    ):  # fmt: skip
        assert line in text.splitlines(), line
    assert "no-hugetlb" not in text
    assert files[f"{RUN}/guest-running.exec"][0].splitlines() == list(guest_plan.commands)


def test_the_vm_is_csits_qemu_command_line() -> None:
    image = QemuImage("/usr/bin/qemu-system-x86_64", "/opt/vm/vmlinuz", "/opt/vm/initrd")
    guest_plan = plan(qemu=image)
    argv = guest_argv(guest_plan)
    assert argv[:4] == ["taskset", "-c", "4,5,6,17,18", image.binary]
    pairs = {(argv[i], argv[i + 1]) for i in range(len(argv) - 1)}
    for pair in (
        ("-smp", "5,sockets=1,cores=5,threads=1"), ("-m", "4096M"), ("-cpu", "host"),
        ("-object", "memory-backend-file,id=mem,size=4096M,mem-path=/dev/hugepages,share=on"),
        ("-machine", "pc,accel=kvm,usb=off,mem-merge=off"), ("-kernel", image.kernel),
        ("-initrd", image.initrd),
        ("-chardev", f"socket,id=char1,path={RUN}/sock-1-1,server=on"),
        ("-netdev", "vhost-user,id=vhost2,chardev=char2,queues=2"),
        ("-device", "virtio-net-pci,netdev=vhost1,mac=52:54:00:00:01:01,addr=6.0,mq=on,"
         "vectors=6,csum=off,gso=off,guest_tso4=off,guest_tso6=off,guest_ecn=off,"
         "rx_queue_size=1024,tx_queue_size=1024"),
    ):  # fmt: skip
        assert pair in pairs, pair
    assert f"init={RUN}/init.sh" in argv[argv.index("-append") + 1]
    assert "-daemonize" not in argv  # ours ends it by PID
    init = guest_files(guest_plan)[f"{RUN}/init.sh"]
    assert init[1] == 0o755
    lines = init[0].splitlines()
    assert "echo vfio-pci > /sys/bus/pci/devices/0000:00:07.0/driver_override" in lines
    assert lines[-2].startswith(
        "dpdk-testpmd -v --lcores 0,1,2,3,4 -a 0000:00:06.0 -a 0000:00:07.0"
    )
    assert "--nb-cores=4" in lines[-2] and lines[-1] == "poweroff -f"


def test_the_vms_vpp_uses_its_vcpus_and_the_virtio_pci_ports() -> None:
    text = qemu.vm_startup_conf(plan("vppl2xc", program="/usr/bin/vpp"))
    assert "  main-core 0" in text and "  corelist-workers 1-4" in text
    assert "  dev 0000:00:06.0" in text and "  dev 0000:00:07.0" in text
    assert "vdev" not in text and "api-segment" not in text
    assert vpp.startup_conf(plan("vppl2xc", hugepages=False)).count("  no-hugetlb") == 1


def test_vhost_interfaces_are_up_when_show_hardware_says_so() -> None:
    shown = (
        "              Name                Idx   Link  Hardware\n"
        "VirtualEthernet0/0/0               3     up   VirtualEthernet0/0/0\n"
        "VirtualEthernet0/0/1               4    down  VirtualEthernet0/0/1\n"
    )
    assert vhost_up(shown, VHOSTS) == ["VirtualEthernet0/0/1"]
    assert vhost_up(shown.replace("down", "up"), VHOSTS) == []


# -- the node's options ------------------------------------------------------------------


def test_a_guest_vm_needs_qemu_kernel_and_initrd(tmp_path: Path) -> None:
    topology = load_topology(filled("csit-2n-example.yaml"))
    node = dataclasses.replace(topology.duts[0], options={"guest_qemu": "/usr/bin/qemu"})
    with pytest.raises(DutError, match=r"nodes\.DUT1\.options\.guest_kernel: guest_kernel missing"):
        parse_options(node)
    text = (filled("csit-2n-example.yaml")).read_text()
    path = tmp_path / "lab.yaml"
    path.write_text(
        text.replace("  DUT1:\n", "  DUT1:\n    options: {guest_kernel: /vmlinuz}\n", 1)
    )
    with pytest.raises(TopologyError) as caught:
        load_topology(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:") and "nodes.DUT1.options: guest_qemu missing" in message
