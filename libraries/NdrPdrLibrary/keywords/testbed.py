"""Testbed keywords: set up and tear down the testbed the topology file describes."""

from __future__ import annotations

from ndrpdr.drivers import describe
from ndrpdr.topology.model import Topology
from ndrpdr.topology.path import TrafficPath
from NdrPdrLibrary import robotout
from NdrPdrLibrary.keywords.component import Component, keyword
from NdrPdrLibrary.secret import Secret


def csit_tags(topology: Topology, path: TrafficPath) -> list[str]:
    """CSIT-style tags of a testbed: drivers, topology, NIC and the DUTs' port drivers."""
    duts = [topology.nodes[key] for key in path.duts]
    tags = {f"TG_{topology.tg.driver.upper()}", path.topology_tag}
    for dut in duts:
        tags.add(f"DUT_{dut.driver.upper()}")
        port_driver = describe("DUT", dut.driver).port_driver
        if port_driver is not None:
            tags.add("DRV_" + port_driver(dut).upper().replace("-", "_"))
    if path.nic is not None:
        tags.add(f"NIC_{path.nic}")
    return sorted(tags)


class TestbedKeywords(Component):
    """Set Up Testbed, Tear Down Testbed, Set SSH Password."""

    @keyword("Set Up Testbed", tags=("testbed",))
    def set_up_testbed(self, topology: str | None = None) -> None:
        """Read the topology file and set the testbed up: node access, DUT drivers, namespaces.

        ``topology``: another topology file to use instead of the library's,
        until `Tear Down Testbed` (e.g. a PabotLib value set's ``topology``).
        Use it in ``Suite Setup``: keywords that need the testbed set it up on
        first use anyway, so this keyword makes the moment explicit and its
        errors the suite setup's. It also sets the suite metadata
        ``Topology``, ``TG``, ``DUTs`` and ``Path`` and tags every test of the
        suite as CSIT does (drivers, topology, NIC, port drivers). What it
        does on each kind of testbed: "Running the suites" in the manual
        (docs/running.rst, The keywords).

        Example:
        | ***** Settings ***** |
        | Library | NdrPdrLibrary | topologies/local-linux.yaml |
        | Suite Setup | Set Up Testbed |
        | Suite Teardown | Tear Down Testbed |
        """
        if topology:
            self.ctx.use_topology(topology)
        described = self.ctx.topology
        testbed = self.ctx.setup_testbed()
        path = testbed.path
        tg = described.tg
        duts = [described.nodes[key] for key in path.duts]
        robotout.set_suite_metadata(
            {
                "Topology": str(described.source),
                "TG": f"{tg.key} ({tg.driver})",
                "DUTs": ", ".join(f"{d.key} ({d.driver})" for d in duts),
                "Path": "; ".join(path.describe(testbed.topology)),
            }
        )
        robotout.add_tags(*csit_tags(described, path))
        robotout.info(
            f"testbed {described.source} is up: TG {tg.key} ({tg.driver}), "
            f"DUTs {', '.join(d.key for d in duts)}, traffic path:\n"
            + "\n".join(path.describe(testbed.topology))
        )

    @keyword("Tear Down Testbed", tags=("testbed",))
    def tear_down_testbed(self) -> None:
        """Stop traffic and the DUTs, close connections, remove local namespaces.

        Use it in ``Suite Teardown``. Safe to call more than once and after a
        setup that failed half way. The DUT telemetry collected on the way is
        logged; a topology file given to `Set Up Testbed` is dropped (the
        library's is used again).

        Example:
        | Suite Teardown | Tear Down Testbed |
        """
        telemetry = self.ctx.teardown_testbed()
        for node, texts in telemetry.items():
            robotout.info(f"{node}: telemetry kept at teardown ({', '.join(texts) or 'none'})")

    @keyword("Set SSH Password", tags=("testbed",))
    def set_ssh_password(self, node: str, password: Secret) -> None:
        """Use ``password`` for SSH to ``node`` instead of the topology's key or password.

        ``password`` is a Robot Framework ``Secret``, so it never shows in
        the logs: give it with ``--variable "DUT1_PASSWORD: Secret:$PASS"``
        or from an environment variable (``VAR    ${pw: Secret}    %{DUT1_PASSWORD}``).
        Call it before the testbed is set up.

        Example:
        | Set SSH Password | DUT1 | ${DUT1_PASSWORD} |
        | Set Up Testbed |
        """
        value = password.value if hasattr(password, "value") else str(password)
        self.ctx.set_password(node, value)
