"""VPP set-up of the SFDP families: CSIT's ``Initialize SFDP Services`` as vppctl lines.

SFDP (VPP's stateful flow data plane: the session table in ``libvnet``,
its services in the ``sfdp_services`` plugin) keeps one session per
connection and runs each packet through the tenant's chain of services.
After CSIT's SFDP suites (``tests/vpp/perf/sfdp``, 2-node, DUT1), its
``Set SFDP Capacity For Sessions`` and ``Initialize SFDP Services``
(its ``features/sfdp.robot``, which calls class ``Sfdp`` of CSIT's
``sfdp.py``), in their order:

- startup.conf: ``sfdp { sessions-log2 L sessions-per-thread-cache-log2 L }``
  with L = ceil(log2(sessions)) + 1, one more than the scale needs (CSIT:
  a table filled to 98 % would be too full for its bihash); and CSIT's
  ``heap_size_mult`` (8 at h65536, 2 at h16384, else none);
- both ports up; static neighbours 10.10.10.2 (TG port 1) and 20.20.20.2
  (TG port 2) with the TG's MACs; the ports' addresses 10.10.10.1/24 and
  20.20.20.1/24;
- tenant 1 (context 1) and its four timeouts (the API's ids 0 - 3: VPP's
  ``embryonic``, ``established``, ``tcp-established``, ``security``) at
  3000 s, so that no session of a trial expires during the test;
- the tenant's services, the same both ways (``forward``, ``reverse``):
  ``ip4`` families ``ip4-lookup``, ``l4ip4`` families ``ip4-lookup
  sfdp-l4-lifecycle`` (the L4 lifecycle service tracks each connection's
  state). The line sets the chain's members; VPP orders them itself
  (``ip4-lookup``, the terminal service, runs after ``sfdp-l4-lifecycle``);
- SFDP input (IPv4) on both ports, tenant 1;
- routes to the clients (*h* hosts from 192.168.0.0, CSIT's ``remote_host1_ip``)
  via 10.10.10.2 and to the servers (from 20.0.0.0) via 20.20.20.2, both
  of prefix length 32 - log2(*h*) (CSIT's ``remote_host_mask``: /22 for
  h1024 ... /16 for h65536).

Before each trial of a cps family (``reset_each_trial``) VPP's sessions
are killed as CSIT's resetter (``Sfdp.create_sfdp_resetter``) does: the
first 10 sessions shown (``show sfdp session-table max 10``, CSIT's debug
log), every session killed (``kill sfdp session all``, the API's
``sfdp_kill_session`` with ``is_all``), then ``show sfdp tenant 1 detail``
read every 0.1 s until its created less removed sessions are none (at
most 10 s). The tput families ramp up instead (CSIT sets its resetter
only without a ramp-up rate).

CSIT calls VPP's binary API; these are the same settings through VPP's CLI
(the driver speaks vppctl): the syntax is VPP's SFDP CLI (its source, and
the help texts and timeout names in v26.06's ``libvnet`` and
``sfdp_services_plugin.so``); the real VPP cannot run here, so the lines
were not run. The tenant and its
sessions outlive the test's ports, so the next test gets a fresh VPP.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import math
import re

from ndrpdr.dut.base import DutError, DutTestConfig, StateCheck, TrialReset
from ndrpdr.families.build import check_scale
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.families.vppsetup import FreshVpp

#: CSIT's first client and first server address (its ``remote_host1_ip``, ``remote_host2_ip``).
CLIENTS_FIRST = "192.168.0.0"
SERVERS_FIRST = "20.0.0.0"
#: CSIT's port addresses (client side, server side) and its TG's next hops on them.
LINK_ADDRESSES = ("10.10.10.1/24", "20.20.20.1/24")
NEXT_HOPS = ("10.10.10.2", "20.20.20.2")
#: CSIT's tenant (id and context).
TENANT = 1
#: The tenant's timeouts CSIT sets (API ids 0 - 3, by VPP's CLI names) and their value [s].
TIMEOUTS = ("embryonic", "established", "tcp-established", "security")
TIMEOUT_S = 3000
#: The services of each variant of CSIT's suites (``@{sfdp_services}``), in CSIT's order.
SERVICES: dict[str, tuple[str, ...]] = {
    "ip4": ("ip4-lookup",),
    "l4ip4": ("ip4-lookup", "sfdp-l4-lifecycle"),
}
#: CSIT's ``heap_size_mult`` of its SFDP suites, by client hosts (1 where a suite sets none).
HEAP_SIZE_MULT = {16384: 2, 65536: 8}
#: The plugin of SFDP's services (CSIT's ``sfdp_services_plugin.so``).
PLUGIN = "sfdp_services"
#: CSIT's resetter: sessions shown first (its debug log), the poll [s] and its limit [s].
RESET_SHOWN = 10
RESET_POLL_S = 0.1
RESET_TIMEOUT_S = 10.0

_CREATED = re.compile(r"created sessions:\s+(\d+)")
_REMOVED = re.compile(r"removed sessions:\s+(\d+)")


def remaining_sessions(output: str) -> int:
    """The tenant's sessions left in ``show sfdp tenant <t> detail``: created less removed,
    as CSIT's ``get_remaining_sfdp_tenant_sessions`` (ValueError quoting the output)."""
    created, removed = _CREATED.search(output), _REMOVED.search(output)
    if created is None or removed is None:
        raise ValueError(
            f"no 'created sessions' and 'removed sessions' in `show sfdp tenant {TENANT} "
            f"detail`: {output.strip()!r}"
        )
    return int(created.group(1)) - int(removed.group(1))


def sessions_log2(sessions: int) -> int:
    """CSIT's log2 of the session table and per-thread cache: ceil(log2(sessions)) + 1."""
    if sessions < 1:
        raise FamilyDefinitionError(f"SFDP: {sessions} sessions; give at least 1")
    return math.ceil(math.log2(sessions)) + 1


def host_network(first: str, hosts: int) -> str:
    """The network of ``hosts`` addresses from ``first`` ("192.168.0.0/22" for 1024)."""
    return str(ipaddress.IPv4Network(f"{first}/{32 - (hosts - 1).bit_length()}"))


@dataclasses.dataclass(frozen=True)
class SfdpVpp(FreshVpp):
    """An SFDP family's VPP set-up: ``services`` "ip4" or "l4ip4", for ``hosts`` client hosts
    of ``ports`` connections each (one session a connection); ``reset_each_trial``: the
    sessions are killed before each trial (CSIT's cps suites, ``trial_reset``)."""

    services: str
    hosts: int
    ports: int
    reset_each_trial: bool = False

    def check(self) -> None:
        """FamilyDefinitionError naming the family for unknown services or a scale CSIT has not."""
        if self.services not in SERVICES:
            raise FamilyDefinitionError(
                f"family {self.family}: SFDP services {self.services!r}; give one of "
                f"{', '.join(SERVICES)}"
            )
        check_scale(self.family, self.hosts, self.ports)

    @property
    def plugins(self) -> tuple[str, ...]:
        """SFDP's services plugin (SFDP's core is VPP's own)."""
        return (PLUGIN,)

    @property
    def sessions(self) -> int:
        """One session per connection: hosts x ports."""
        return self.hosts * self.ports

    @property
    def startup(self) -> str:
        """The ``sfdp`` section: the session table and per-thread cache for the scale."""
        log2 = sessions_log2(self.sessions)
        return f"sfdp {{\n  sessions-log2 {log2}\n  sessions-per-thread-cache-log2 {log2}\n}}\n"

    @property
    def heap_size_mult(self) -> int:
        """CSIT's multiple of its 3 GiB main heap for this scale."""
        return HEAP_SIZE_MULT.get(self.hosts, 1)

    @property
    def trial_reset(self) -> TrialReset | None:
        """With ``reset_each_trial``: CSIT's resetter (the module docstring); else None."""
        if not self.reset_each_trial:
            return None
        return TrialReset(
            "SFDP sessions killed",
            (f"show sfdp session-table max {RESET_SHOWN}", "kill sfdp session all"),
            until_empty=StateCheck(
                "SFDP sessions", f"show sfdp tenant {TENANT} detail", remaining_sessions
            ),
            poll_s=RESET_POLL_S,
            timeout_s=RESET_TIMEOUT_S,
        )

    @property
    def routes(self) -> tuple[str, str]:
        """The clients' and the servers' networks (CSIT's remote hosts and mask)."""
        return host_network(CLIENTS_FIRST, self.hosts), host_network(SERVERS_FIRST, self.hosts)

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for DUT1 of a 2-node chain (the module docstring), CSIT's order."""
        if config.chain != 1:
            raise DutError(
                f"family {self.family}: runs on a 2-node chain (DUT1 only); this DUT is number "
                f"{config.position + 1} of {config.chain}"
            )
        ports = tuple(zip(names, LINK_ADDRESSES, NEXT_HOPS, config.ports, strict=True))
        services = " ".join(SERVICES[self.services])
        return [
            *(f"set interface state {name} up" for name in names),
            *(
                f"set ip neighbor {name} {hop} {port.peer_mac.lower()} static"
                for name, _, hop, port in ports
            ),
            *(f"set interface ip address {name} {address}" for name, address, _, _ in ports),
            f"sfdp tenant add {TENANT} context {TENANT}",
            *(f"set sfdp timeout tenant {TENANT} {name} {TIMEOUT_S}" for name in TIMEOUTS),
            f"set sfdp services tenant {TENANT} {services} forward",
            f"set sfdp services tenant {TENANT} {services} reverse",
            *(f"set sfdp interface-input {name} tenant {TENANT}" for name in names),
            *(
                f"ip route add {route} via {hop} {name}"
                for route, (name, _, hop, _) in zip(self.routes, ports, strict=True)
            ),
        ]
