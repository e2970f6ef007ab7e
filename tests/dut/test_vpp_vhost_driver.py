"""The vpp driver with a vhost family: the guest's CPUs, command line, start, wait and end.

Against the recording NodeAccess of ``test_vpp_driver`` (no VPP, testpmd
or QEMU run: VPP's build cannot run here; the stand-in's own real test is
``test_vhost_guest_real``): a lab DUT of csit-2n-example.yaml whose CPUs
are a fake ``lscpu`` list. The driver plans the guest at ``configure``
(CSIT's VM's CPUs; a node without them or without the guest's program
skips there, before any start), gives VPP the guest's sockets, starts the
guest after VPP's set-up, waits for VPP's vhost-user interfaces and ends
the guest by PID.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from test_vpp_driver import VERSION, Clock, RecordingAccess, make, vppctl
from test_vpp_peer_driver import lscpu

from example_topologies import filled
from ndrpdr.dut.base import DutError, UnsupportedFamilyError
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.guest import run as guest_run
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.vpp.driver import VppDriver
from ndrpdr.families import get_family
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology

TOKEN = "feed0002"
RUN = f"/var/tmp/ndrpdr-guest-{TOKEN}"
UP = "VirtualEthernet0/0/0  3  up  x\nVirtualEthernet0/0/1  4  up  x\n"
FIND = ("sh", "-c", 'command -v -- "$1" >/dev/null', "sh")


@pytest.fixture(scope="module")
def csit() -> Topology:
    return load_topology(filled("csit-2n-example.yaml"))


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guest_run.secrets, "token_hex", lambda _: TOKEN)


def scripted(up: str = UP) -> tuple[RecordingAccess, Clock]:
    access, clock = RecordingAccess(), Clock()
    access.clock = clock
    access.script(vppctl("show version"), (0, VERSION, ""))
    access.script(vppctl("show hardware-interfaces"), (0, up, ""))
    access.script(vppctl("show plugins"), (0, " 1. vhost_plugin.so  v26.06  Vhost-User\n", ""))
    return access, clock


def configured(
    csit: Topology, family: str, access: RecordingAccess, clock: Clock, cores: int = 2,
    **options: Any,
) -> VppDriver:  # fmt: skip
    driver = make(csit, access, clock, **options)
    config = dataclasses.replace(
        plan_dut(csit, "l2xc", cores=cores), family=get_family(family).setup, cpus=lscpu(12)
    )
    driver.configure(config)
    return driver


def test_the_testpmd_guest_runs_on_csits_vm_cpus_and_ends_with_the_test(csit: Topology) -> None:
    access, clock = scripted()
    driver = configured(csit, "eth-l2xcbase-eth-2vhostvr1024-1vm", access, clock)
    driver.start()
    driver.health_check()
    assert vppctl(f"create vhost-user socket {RUN}/sock-1-1") in access.calls
    assert vppctl(f"create vhost-user socket {RUN}/sock-1-2") in access.calls
    started = [c[1:] for c in access.calls if c[:2] == ("<start>", "dpdk-testpmd")]
    assert len(started) == 1
    argv = started[0]
    # DUT: main 1, workers 2-3 and siblings; the VM: main 4, then 5-6 with siblings 17-18
    assert argv[1:4] == ("-v", "--lcores", "0@4,1@5,2@6,3@17,4@18")
    assert "--nb-cores=4" in argv and "--rxq=4" in argv and "--txq=4" in argv
    assert f"virtio_user0,path={RUN}/sock-1-1,server=1,queue_size=1024,queues=4" in argv
    # VPP's set-up first, then the guest, then the wait for both vhost-user interfaces
    create = access.calls.index(vppctl(f"create vhost-user socket {RUN}/sock-1-1"))
    start = access.calls.index(("<start>", *argv))
    assert create < start < access.calls.index(vppctl("show hardware-interfaces"))
    assert driver.telemetry()["guest"].startswith("guest testpmd_io (stand-in on virtio_user)")
    driver.stop()
    assert [p.stops for p in access.processes if p.argv[0] == "dpdk-testpmd"] == [1]
    assert ("rm", "-rf", "--", RUN) in access.calls


def test_a_vpp_guest_gets_its_startup_conf_and_lines(csit: Topology) -> None:
    access, clock = scripted()
    driver = configured(csit, "eth-l2xcbase-eth-2vhostvr1024-1vm-vppl2xc", access, clock, cores=1)
    driver.start()
    driver.health_check()
    started = [c[1:] for c in access.calls if c[:1] == ("<start>",) and "-c" in c]
    assert ("/usr/bin/vpp", "-c", f"{RUN}/guest-startup.conf") in started
    text = access.files[f"{RUN}/guest-startup.conf"].decode()
    assert "  main-core 3" in text and "  corelist-workers 4,16" in text
    lines = access.files[f"{RUN}/guest-running.exec"].decode().splitlines()
    assert "set interface l2 xconnect VirtioUser0 VirtioUser1" in lines


def test_a_node_without_testpmd_skips_naming_it_before_any_start(csit: Topology) -> None:
    access, clock = scripted()
    access.script((*FIND, "dpdk-testpmd"), (1, "", ""))
    with pytest.raises(UnsupportedFamilyError, match=r"needs dpdk-testpmd \(not found"):
        configured(csit, "eth-l2bdbasemaclrn-eth-2vhostvr1024-1vm", access, clock)
    assert not [c for c in access.calls if c[0] == "<start>"]


def test_a_node_without_the_vms_cpus_skips_naming_the_guest(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    driver = make(csit, access, clock)
    config = dataclasses.replace(
        plan_dut(csit, "l2xc", cores=1), family=get_family(
            "eth-l2xcbase-eth-2vhostvr1024-1vm").setup, cpus=lscpu(4),
    )  # fmt: skip
    with pytest.raises(UnsupportedCoresError, match="the guest of a vhost-user family"):
        driver.configure(config)
    assert not [c for c in access.calls if c[0] == "<start>"]


def test_with_qemu_in_the_options_the_guest_is_a_vm_and_needs_kvm(csit: Topology) -> None:
    vm = {"guest_qemu": "/usr/bin/qemu-system-x86_64", "guest_kernel": "/opt/vm/vmlinuz",
          "guest_initrd": "/opt/vm/initrd.img"}  # fmt: skip
    access, clock = scripted()
    access.script(("test", "-e", "/dev/kvm"), (1, "", ""))
    with pytest.raises(UnsupportedFamilyError, match="needs KVM /dev/kvm"):
        configured(csit, "eth-l2xcbase-eth-2vhostvr1024-1vm", access, clock, **vm)
    access, clock = scripted()
    driver = configured(csit, "eth-l2xcbase-eth-2vhostvr1024-1vm", access, clock, **vm)
    driver.start()
    driver.health_check()
    started = [c[1:] for c in access.calls if c[:2] == ("<start>", "taskset")]
    assert len(started) == 1 and started[0][2:4] == ("4,5,6,17,18", vm["guest_qemu"])
    assert f"{RUN}/init.sh" in access.files


def test_vhost_interfaces_that_never_come_up_fail_the_set_up(csit: Topology) -> None:
    access, clock = scripted(up=UP.replace("4  up", "4  down"))
    driver = configured(csit, "eth-l2xcbase-eth-2vhostvr1024-1vm", access, clock)
    driver.start()
    with pytest.raises(DutError, match=r"VirtualEthernet0/0/1 not up \(guest pid 4242\)"):
        driver.health_check()
