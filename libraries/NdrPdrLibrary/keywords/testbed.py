"""Testbed keywords: set up and tear down the testbed the topology file describes."""

from __future__ import annotations

from NdrPdrLibrary import robotout
from NdrPdrLibrary.keywords.component import Component, keyword
from NdrPdrLibrary.secret import Secret


class TestbedKeywords(Component):
    """Set Up Testbed, Tear Down Testbed, Set SSH Password."""

    __test__ = False  # not a pytest test class despite the name

    @keyword("Set Up Testbed", tags=("testbed",))
    def set_up_testbed(self) -> None:
        """Read the topology file and set the testbed up: node access, DUT drivers, namespaces.

        Use it in ``Suite Setup``. On a local topology it creates the network
        namespaces and veth pairs; on a lab topology it opens the SSH
        connections. Keywords that need the testbed set it up on first use
        anyway, so this keyword only makes the moment explicit (and its
        errors belong to the suite setup).

        Also sets suite metadata ``Topology``, ``TG`` and ``DUTs`` and tags
        every test of the suite with the drivers: ``TG_SIM``, ``DUT_TESTPMD``, ...

        Example:
        | ***** Settings *****
        | Library           NdrPdrLibrary    topologies/local-linux.yaml
        | Suite Setup       Set Up Testbed
        | Suite Teardown    Tear Down Testbed
        """
        topology = self.ctx.topology
        self.ctx.setup_testbed()
        tg = topology.tg
        duts = topology.duts
        robotout.set_suite_metadata(
            {
                "Topology": str(topology.source),
                "TG": f"{tg.key} ({tg.driver})",
                "DUTs": ", ".join(f"{d.key} ({d.driver})" for d in duts),
            }
        )
        tags = {f"TG_{tg.driver.upper()}"} | {f"DUT_{d.driver.upper()}" for d in duts}
        robotout.add_tags(*sorted(tags))
        robotout.info(
            f"testbed {topology.source} is up: TG {tg.key} ({tg.driver}), "
            f"DUTs {', '.join(d.key for d in duts)}"
        )

    @keyword("Tear Down Testbed", tags=("testbed",))
    def tear_down_testbed(self) -> None:
        """Stop traffic and the DUTs, close connections, remove local namespaces.

        Safe to call more than once and when the setup failed half way. The
        DUT telemetry collected on the way is logged. Use it in
        ``Suite Teardown``.

        Example:
        | Suite Teardown    Tear Down Testbed
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
        | Set SSH Password    DUT1    ${DUT1_PASSWORD}
        | Set Up Testbed
        """
        value = password.value if hasattr(password, "value") else str(password)
        self.ctx.set_password(node, value)
