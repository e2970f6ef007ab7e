"""DUT keywords: configure the devices under test for a test, stop them, show their telemetry."""

from __future__ import annotations

import html

from robot.api import SkipExecution

from ndrpdr.dut.base import UnsupportedFamilyError
from ndrpdr.families import get_family
from ndrpdr.profiles import frame_sizes
from NdrPdrLibrary import robotout
from NdrPdrLibrary.argtypes import DutMode, FrameSize, TrafficProfile
from NdrPdrLibrary.keywords.component import Component, keyword


def _largest(frame_size: FrameSize) -> int:
    return max(frame_sizes(frame_size.value))


class DutKeywords(Component):
    """Configure DUTs, Configure DUTs For Traffic, Stop DUTs, Show DUT Telemetry."""

    @keyword("Configure DUTs", tags=("dut",))
    def configure_duts(
        self,
        mode: DutMode = DutMode.IP4BASE,
        cores: int = 1,
        max_frame_size: FrameSize = FrameSize(1518),
    ) -> None:
        """Configure every DUT to forward between its two test ports, start it, check it.

        ``mode`` is a `DutMode`: ``ip4base`` (IPv4 routing of the
        198.18.0.0/15 test networks) or ``l2xc`` (L2 cross-connect, or MAC
        swap where the data plane has no cross-connect). ``cores`` is the
        number of data-plane worker cores, ``max_frame_size`` the largest
        frame of the test (for MTU settings). A running DUT is restarted with
        the new configuration. `Configure DUTs For Traffic` configures a
        test family instead.

        Example:
        | Configure DUTs | ip4base | cores=2 | max_frame_size=9000 |
        """
        size = _largest(max_frame_size)
        self.ctx.testbed.configure_duts(mode.value, cores=cores, max_frame_size_b=size)
        robotout.info(f"DUTs configured: {mode.value}, {cores} core(s), frames up to {size} B")

    @keyword("Configure DUTs For Traffic", tags=("dut",))
    def configure_duts_for_traffic(
        self, profile: TrafficProfile, frame_size: FrameSize, cores: int = 1, smt: bool = True
    ) -> None:
        """Configure the DUTs the way test family ``profile`` needs, start and check them.

        Each DUT driver applies the family's set-up (``ethip6-ip6base``: IPv6
        routes; ``eth-l2bdbasemaclrn``: a learning bridge...) with ``cores``
        physical cores of workers and the MTU for ``frame_size``. On a DUT
        with SMT each core gives all its hardware threads as workers (CSIT's
        ``2T1C``) unless ``smt`` is false (CSIT's ``${smt_used}``): one thread
        a core. A testbed whose chain or DUT driver cannot run the family
        skips the test, saying why. Details: "Running the suites" in the
        manual (docs/running.rst, Threads, cores and SMT).

        Example:
        | Configure DUTs For Traffic | ethip6-ip6base | 64 | cores=2 | smt=${False} |
        """
        family = get_family(profile.value)
        size = _largest(frame_size)
        try:
            self.ctx.testbed.configure_family(family, cores=cores, max_frame_size_b=size, smt=smt)
        except UnsupportedFamilyError as exc:
            raise SkipExecution(f"this testbed cannot run {family.id}: {exc}") from exc
        robotout.info(f"DUTs configured: {family.id}, {cores} core(s), frames up to {size} B")

    @keyword("DUT Thread Tags", tags=("dut",))
    def dut_thread_tags(self, cores: int = 1) -> list[str]:
        """CSIT's thread tags of the DUTs as configured: ``<threads>T<cores>C`` and ``MTHREAD``
        (more than one data-plane thread) or ``STHREAD``.

        The numbers are what the DUTs' drivers gave the test (``2T1C``: two
        SMT sibling threads of one physical core); a DUT whose driver has no
        workers (sim, linux, ovs) counts one thread for each of ``cores``.

        Example:
        | ${tags} = | DUT Thread Tags | ${cores} |
        | Set Tags | @{tags} |
        """
        testbed = self.ctx.testbed
        return testbed.threads.tags(testbed.path.duts, cores)

    @keyword("Stop DUTs", tags=("dut",))
    def stop_duts(self) -> None:
        """Stop the DUTs' data planes (their telemetry is kept first); the testbed stays up.

        Example:
        | Stop DUTs |
        """
        if self.ctx.is_set_up:
            self.ctx.testbed.stop_duts()

    @keyword("Show DUT Telemetry", tags=("dut",))
    def show_dut_telemetry(self) -> dict[str, dict[str, str]]:
        """Log every DUT's telemetry now (counters, runtime statistics) and return it.

        The result maps a DUT node to its texts by name, e.g.
        ``${telemetry}[DUT1][show runtime]``. Nothing is logged when the
        testbed is not set up.

        Example:
        | [Teardown] | Show DUT Telemetry |
        """
        if not self.ctx.is_set_up:
            robotout.info("no testbed set up: no DUT telemetry")
            return {}
        telemetry = self.ctx.testbed.collect_telemetry()
        for node, texts in telemetry.items():
            parts = [f"<h4>{html.escape(node)}</h4>"]
            for name, text in texts.items():
                parts.append(f"<b>{html.escape(name)}</b><pre>{html.escape(text)}</pre>")
            robotout.info("".join(parts), html=True)
        return telemetry
