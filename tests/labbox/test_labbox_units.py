"""The pure parts of the lab in a box: names, address choice, keys, sshd_config, passwd."""

from __future__ import annotations

import io
import random
import stat
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from pathlib import Path

import paramiko
import pytest

from ndrpdr.labbox import LabboxError
from ndrpdr.labbox.addresses import (
    LINK_LOCAL,
    RESERVED,
    blocking_networks,
    choose_networks,
    free_networks,
    host_address,
    parse_ip_addresses,
    parse_ip_routes,
    root_address,
)
from ndrpdr.labbox.keys import known_hosts_line, new_ed25519_key, write_private, write_public
from ndrpdr.labbox.mgmt import MgmtLink, create_batch, host_batch, root_batch
from ndrpdr.labbox.plan import HOST_IFNAME, make_labbox_plan, root_ifname
from ndrpdr.labbox.sshd import log_tail
from ndrpdr.labbox.sshd_config import (
    HOST_SCRIPT,
    host_command,
    parse_openssh_version,
    root_shell_sh,
    sshd_config_text,
)

NAMESPACES = {"TG": "ndrpdr-1-abcd-tg", "DUT1": "ndrpdr-1-abcd-dut1", "DUT2": "ndrpdr-1-abcd-dut2"}

# -- names and paths ------------------------------------------------------------------


def test_root_ifnames_fit_the_kernel_limit_and_carry_the_run_token() -> None:
    names = [root_ifname("0123abcd", i) for i in (0, 9, 10, 999)]
    assert names == ["ndlb0123abcd0", "ndlb0123abcd9", "ndlb0123abcd10", "ndlb0123abcd999"]
    assert max(len(n) for n in names) == 15
    with pytest.raises(LabboxError, match="out of range"):
        root_ifname("0123abcd", 1000)
    with pytest.raises(LabboxError, match="8 lowercase hex"):
        root_ifname("0123ABCD", 0)


def test_plan_names_each_host_and_the_run_files() -> None:
    plan = make_labbox_plan(
        "1-abcd", NAMESPACES, ["TG", "DUT1"], token="0123abcd", base_dir=Path("/run/x")
    )
    assert plan.directory == Path("/run/x/labbox-1-abcd")
    tg, dut = plan.hosts
    assert (tg.node, tg.namespace, tg.root_ifname, tg.host_ifname) == (
        "TG",
        "ndrpdr-1-abcd-tg",
        "ndlb0123abcd0",
        HOST_IFNAME,
    )
    assert dut.root_ifname == "ndlb0123abcd1"
    assert dut.directory == Path("/run/x/labbox-1-abcd/hosts/DUT1")
    assert dut.host_key.parent == dut.sshd_config.parent == dut.pid_file.parent == dut.directory
    assert plan.client_key.parent == plan.known_hosts.parent == plan.directory
    assert plan.host("DUT1") is dut
    with pytest.raises(LabboxError, match="'DUT2' is not a labbox host"):
        plan.host("DUT2")


@pytest.mark.parametrize(
    ("nodes", "namespaces", "base", "message"),
    [
        ([], NAMESPACES, "/run/x", "no host nodes"),
        (["TG", "TG"], NAMESPACES, "/run/x", "host nodes repeat: TG"),
        (["TG", "DUT3"], NAMESPACES, "/run/x", "node DUT3 has no namespace"),
        (["TG", "DUT1"], {"TG": "ns-a", "DUT1": "ns-a"}, "/run/x", "share namespace ns-a"),
        (["TG"], NAMESPACES, "/tmp/labbox", "below /tmp, which is private"),
        (["TG"], NAMESPACES, "/run/dpdk", "below /run/dpdk"),
        (["TG"], NAMESPACES, "run/x", "not an absolute path"),
        (["T G"], {"T G": "x"}, "/run/x", "not usable as a host name"),
        (["DUT1"], NAMESPACES, "/run/x", "node DUT1 has a port named mgmt0"),
    ],
)
def test_plan_refuses_what_it_cannot_build(
    nodes: list[str], namespaces: dict[str, str], base: str, message: str
) -> None:
    ports = {"TG": ["tg-if1"], "DUT1": ["dut-if1", "mgmt0"]}
    with pytest.raises(LabboxError, match=message):
        make_labbox_plan(
            "1-abcd", namespaces, nodes, token="0123abcd", base_dir=Path(base), port_names=ports
        )


# -- management addresses -------------------------------------------------------------


def test_a_management_network_gives_the_root_end_1_and_the_host_end_2() -> None:
    network = IPv4Network("169.254.7.8/30")
    assert (root_address(network), host_address(network)) == (
        IPv4Address("169.254.7.9"),
        IPv4Address("169.254.7.10"),
    )


def test_free_networks_skip_reserved_ranges_and_used_addresses_and_routes() -> None:
    everything = free_networks([])
    all_30s = set(LINK_LOCAL.subnets(new_prefix=30))
    reserved_30s = {n for r in RESERVED for n in r.subnets(new_prefix=30)}
    assert set(everything) == all_30s - reserved_30s
    assert len(everything) == (256 - 3) * 64  # 253 usable /24s of 64 /30s each
    used = [IPv4Network("169.254.7.9/32"), IPv4Network("169.254.8.0/24")]
    free = set(free_networks(used))
    assert IPv4Network("169.254.7.8/30") not in free
    assert IPv4Network("169.254.7.4/30") in free
    assert not any(n.subnet_of(IPv4Network("169.254.8.0/24")) for n in free)
    assert len(free) == len(everything) - 1 - 64


def test_addresses_block_as_hosts_and_narrow_networks_and_routes_block_as_networks() -> None:
    blocking = blocking_networks(
        [IPv4Interface("169.254.1.1/16"), IPv4Interface("169.254.2.5/30")],
        [
            IPv4Network("0.0.0.0/0"),
            IPv4Network("169.254.0.0/16"),  # zeroconf: broad, a /30 route is more specific
            IPv4Network("169.254.3.0/24"),
            IPv4Network("10.0.0.0/8"),
        ],
    )
    assert sorted(blocking) == sorted(
        [
            IPv4Network("169.254.1.1/32"),
            IPv4Network("169.254.2.5/32"),
            IPv4Network("169.254.2.4/30"),
            IPv4Network("169.254.3.0/24"),
        ]
    )


def test_choose_networks_picks_distinct_free_networks_at_random() -> None:
    used = [IPv4Network("169.254.1.0/24")]
    picked = choose_networks(50, used, random.Random(1))
    assert len(set(picked)) == 50
    assert set(picked) <= set(free_networks(used))
    assert picked != choose_networks(50, used, random.Random(2))
    all_but_one = free_networks([])[1:]
    assert choose_networks(1, all_but_one) == [free_networks([])[0]]
    with pytest.raises(LabboxError, match=r"only 1 free /30 networks .* for 2 labbox hosts"):
        choose_networks(2, all_but_one)


def test_ip_json_is_read_into_addresses_and_route_destinations() -> None:
    addresses = [
        {"ifname": "lo", "addr_info": [{"family": "inet", "local": "127.0.0.1", "prefixlen": 8}]},
        {
            "ifname": "eth0",
            "addr_info": [
                {"family": "inet", "local": "169.254.5.6", "prefixlen": 30},
                {"family": "inet6", "local": "fe80::1", "prefixlen": 64},
            ],
        },
        {"ifname": "dummy0"},
    ]
    assert parse_ip_addresses(addresses) == [
        IPv4Interface("127.0.0.1/8"),
        IPv4Interface("169.254.5.6/30"),
    ]
    routes = [{"dst": "default"}, {"dst": "192.0.2.0/24"}, {"dst": "127.0.0.1"}, {"dst": "x"}]
    assert parse_ip_routes(routes) == [
        IPv4Network("0.0.0.0/0"),
        IPv4Network("192.0.2.0/24"),
        IPv4Network("127.0.0.1/32"),
    ]
    assert parse_ip_routes(None) == parse_ip_addresses([]) == []


def test_ip_batches_create_address_and_raise_each_end() -> None:
    link = MgmtLink("TG", "ns-tg", "ndlb0123abcd0", "mgmt0", IPv4Network("169.254.7.8/30"))
    assert create_batch([link]) == "link add ndlb0123abcd0 type veth peer name mgmt0 netns ns-tg\n"
    assert root_batch([link]) == (
        "addr add 169.254.7.9/30 dev ndlb0123abcd0\nlink set dev ndlb0123abcd0 up\n"
    )
    assert host_batch(link) == "addr add 169.254.7.10/30 dev mgmt0\nlink set dev mgmt0 up\n"


# -- keys -----------------------------------------------------------------------------


def test_keys_are_ed25519_that_paramiko_reads_and_known_hosts_lines_match(
    tmp_path: Path,
) -> None:
    key = new_ed25519_key("ndrpdr-test")
    loaded = paramiko.Ed25519Key.from_private_key(io.StringIO(key.private_openssh.decode()))
    assert key.public == f"ssh-ed25519 {loaded.get_base64()} ndrpdr-test"
    assert key.public_key == f"ssh-ed25519 {loaded.get_base64()}"
    assert "private" not in repr(key).lower().replace("private_openssh", "")
    assert known_hosts_line(IPv4Address("169.254.7.10"), 22, key) == (
        f"169.254.7.10 {key.public_key}"
    )
    assert known_hosts_line(IPv4Address("169.254.7.10"), 2222, key).startswith(
        "[169.254.7.10]:2222 ssh-ed25519 "
    )
    assert new_ed25519_key("x").public != new_ed25519_key("x").public
    with pytest.raises(ValueError, match="one word"):
        new_ed25519_key("two words")


def test_private_files_are_0600_from_the_start_and_never_overwritten(tmp_path: Path) -> None:
    write_private(tmp_path / "key", b"secret")
    write_public(tmp_path / "key.pub", "public\n")
    assert stat.S_IMODE((tmp_path / "key").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "key.pub").stat().st_mode) == 0o644
    with pytest.raises(FileExistsError):
        write_private(tmp_path / "key", b"other")
    assert (tmp_path / "key").read_bytes() == b"secret"


# -- sshd -----------------------------------------------------------------------------


def test_sshd_config_allows_only_key_login_as_root_on_the_host_address() -> None:
    text = sshd_config_text(
        listen=IPv4Address("169.254.7.10"),
        port=22,
        host_key=Path("/run/x/hosts/TG/ssh_host_ed25519_key"),
        authorized_keys=Path("/run/x/authorized_keys"),
        pid_file=Path("/run/x/hosts/TG/sshd.pid"),
        openssh_version=(9, 2),
    )
    lines = text.splitlines()
    for line in [
        "ListenAddress 169.254.7.10:22",
        "HostKey /run/x/hosts/TG/ssh_host_ed25519_key",
        "AuthorizedKeysFile /run/x/authorized_keys",
        "PidFile /run/x/hosts/TG/sshd.pid",
        "UsePAM no",
        "PermitRootLogin prohibit-password",
        "StrictModes no",
        "Subsystem sftp internal-sftp",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
    ]:
        assert line in lines
    assert "PerSourcePenalties no" not in lines  # 9.2 does not know it
    newer = sshd_config_text(
        listen=IPv4Address("169.254.7.10"),
        port=22,
        host_key=Path("/k"),
        authorized_keys=Path("/a"),
        pid_file=Path("/p"),
        openssh_version=(9, 8),
    )
    assert "PerSourcePenalties no" in newer.splitlines()


def test_openssh_versions_are_read_from_sshd_v() -> None:
    assert parse_openssh_version("OpenSSH_9.2p1 Debian-2+deb12u3, OpenSSL 3.0.15") == (9, 2)
    assert parse_openssh_version("OpenSSH_10.0p2, OpenSSL 3.5") == (10, 0)
    assert parse_openssh_version("sshd: illegal option -- V") is None


def test_passwd_copy_gives_only_root_the_plain_shell() -> None:
    passwd = "root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/bash\n"
    assert root_shell_sh(passwd) == (
        "root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000::/home/user:/bin/bash\n"
    )


def test_host_command_mounts_private_dirs_then_execs_sshd_in_place() -> None:
    config = "/run/x/hosts/TG/sshd_config"
    argv = host_command("/usr/sbin/sshd", Path(config), Path("/run/x/p"))
    assert argv[:4] == ["unshare", "--mount", "--propagation", "private"]
    assert argv[4:8] == ["sh", "-c", HOST_SCRIPT, "sh"]
    assert argv[8:] == [
        "/run/x/p",
        "/usr/sbin/sshd",
        "-D",
        "-e",
        "-f",
        "/run/x/hosts/TG/sshd_config",
    ]
    assert "mount -t tmpfs" in HOST_SCRIPT and " /tmp\n" in HOST_SCRIPT
    assert " /run/dpdk\n" in HOST_SCRIPT
    assert HOST_SCRIPT.rstrip().endswith('exec "$@"')  # sshd keeps the started PID


def test_log_tail_quotes_the_last_lines() -> None:
    assert log_tail("") == "  (empty)"
    assert log_tail("\n".join(str(i) for i in range(30)), 3) == "  27\n  28\n  29"
