"""What a test family's VPP set-up may ask of the vpp driver besides its commands.

A family's ``VppSetup`` (``ndrpdr.dut.base``) renders vppctl lines and
names plugins. Some families need more, each a member of the set-up that
the others leave at its default (``ndrpdr.families.vppsetup``), read here
so the driver never branches on family names:

- ``startup`` (str): a startup.conf section to append (the IPsec SPD flow
  caches are startup options only);
- ``heap_size_mult`` (int): FD.io CSIT's ``heap_size_mult`` of the family's
  suites, the multiple of its 3 GiB main heap (NAT44 with 4M sessions: 2);
- ``fresh`` (bool): the set-up leaves state that deleting the test's ports
  does not remove (tunnels, SAs, SR policies, memifs): the VPP of the run
  is restarted for the next test instead of reused;
- ``rx_workers`` (int or None): only the first N workers read the ports
  (the IPsec async families' data-plane worker; the others do crypto);
- ``peer_commands`` (tuple of str): a second VPP runs next to the DUT's
  (``ndrpdr.dut.vpp.peer``) and these are its commands; ``{socket}``
  stands for the path of the memif socket the DUT's VPP listens on;
- ``guest`` (str or None): a guest over vhost-user runs beside VPP
  (``ndrpdr.dut.guest``, CSIT's vnf), ``guest_commands`` a guest VPP's
  lines; ``{guest_dir}`` in the DUT's lines stands for its run directory.
- ``hardware`` (``ndrpdr.dut.accel.HardwareNeed`` or None): a device of the
  node the family needs (QAT, DSA, flow offload): a node without it skips
  the test; its lines go into startup.conf's ``dpdk`` section and its
  preparation runs before VPP starts.

``{queues}`` in a set-up's lines (the DUT's and the second VPP's) stands
for the memif queue count: the DUT's RX queues per port, one per worker
(CSIT's ``rxq_count_int``); the driver fills it in (``fill_queues``).

Long command lists (thousands of tunnels) go to VPP as one script run by
``vppctl exec`` (``EXEC_THRESHOLD``). Measured here (VPP v26.06, af_packet
DUT in a namespace, 2 shared CPUs): one vppctl call per line costs about
13 ms (an SRv6 DUT's 19 lines: 0.25 s); the 80010 lines of 10000 IPsec
tunnels take 3.4 s as one script (0.04 ms a line; 4 tunnels' 48 lines
0.19 s), and the same through vpp_papi, one
synchronous API call per object, 62 s. A script also works over SSH,
which vpp_papi (a local API socket) does not.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndrpdr.dut.accel import HardwareNeed
from ndrpdr.dut.base import DutTestConfig, VppSetup

#: More forwarding commands than this go to VPP as one ``vppctl exec`` script.
EXEC_THRESHOLD = 40
#: What ``vppctl exec`` prints when a line of the script fails (VPP stops there).
EXEC_ERROR = "exec: CLI line error"


def _setup(config: DutTestConfig | None) -> VppSetup | None:
    family = None if config is None else config.family
    return None if family is None else family.vpp


def startup_section(config: DutTestConfig) -> str:
    """The startup.conf text the family adds ("" for none)."""
    setup = _setup(config)
    return "" if setup is None else setup.startup


def heap_size_mult(config: DutTestConfig) -> int:
    """The family's multiple of CSIT's main heap (1 without one)."""
    setup = _setup(config)
    return 1 if setup is None else max(1, setup.heap_size_mult)


def needs_fresh_vpp(config: DutTestConfig | None) -> bool:
    """True when the family's set-up leaves state only a restart of VPP removes."""
    setup = _setup(config)
    return setup is not None and setup.fresh


def rx_workers(config: DutTestConfig | None, workers: Sequence[int]) -> int:
    """How many of ``workers`` read the ports: the family's ``rx_workers`` (at most all)."""
    setup = _setup(config)
    wanted = None if setup is None else setup.rx_workers
    if wanted is None or not workers:
        return len(workers)
    return max(1, min(len(workers), wanted))


def peer_commands(config: DutTestConfig | None) -> tuple[str, ...]:
    """The second VPP's commands (empty: the family needs no second VPP)."""
    setup = _setup(config)
    return () if setup is None else tuple(setup.peer_commands)


def guest(config: DutTestConfig | None) -> str | None:
    """CSIT's vnf of the family's guest over vhost-user (None: it has none)."""
    setup = _setup(config)
    return None if setup is None else setup.guest


def guest_commands(config: DutTestConfig) -> tuple[str, ...]:
    """A guest VPP's lines (none for testpmd or without a guest)."""
    setup = _setup(config)
    return () if setup is None else tuple(setup.guest_commands(config))


def hardware(config: DutTestConfig | None) -> HardwareNeed | None:
    """The device the family needs besides the ports (None: none)."""
    setup = _setup(config)
    return None if setup is None else setup.hardware


def fill_queues(line: str, queues: int) -> str:
    """``line`` with ``{queues}`` replaced by ``queues``."""
    return line.replace("{queues}", str(queues))


def script(commands: Sequence[str]) -> bytes:
    """The ``vppctl exec`` script of ``commands`` (one line each)."""
    return ("\n".join(commands) + "\n").encode()


def exec_error(commands: Sequence[str], output: str) -> str | None:
    """The line of ``vppctl exec``'s output that says a command failed, or None."""
    for line in output.splitlines():
        if EXEC_ERROR in line or line.strip().lower().startswith(("unknown input", "error")):
            return line.strip() + (
                "" if len(commands) < 2 else f" (script of {len(commands)} commands)"
            )
    return None
