"""TRex over memif: labbox-2n-vpp-memif.yaml with the real TRex v3.08 and VPP v26.06.

Real parts only: the hosts are network namespaces with their own sshd;
TRex runs on its DPDK path (not software mode), its ports DPDK's net_memif
devices serving a socket file per link in the run's directory; VPP
(``/opt/vpp/v26.06``) on the DUT host connects to them as the memif client
and routes (ethip4-ip4base). One short trial, so CI stays fast (the NDR
comparison with af_packet is ``benchmarks/memif.py``). Needs root, sshd,
TRex and VPP (skipped otherwise, failed when ``NDRPDR_REQUIRE_VPP=1``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from acceptance_helpers import TOPOLOGIES, netns_list
from test_labbox_suites import _vpp_missing

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.families import get_family, profile_of
from ndrpdr.topology.loader import load_topology

TOPOLOGY = TOPOLOGIES / "labbox-2n-vpp-memif.yaml"
#: A rate both ends hold on a busy 2-CPU machine [frames/s, both directions].
RATE_PPS = 100_000.0

if _vpp_missing() is not None and os.environ.get("NDRPDR_REQUIRE_VPP") == "1":
    raise RuntimeError(f"NDRPDR_REQUIRE_VPP=1, but {_vpp_missing()}")
pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(_vpp_missing() is not None, reason=_vpp_missing() or ""),
]


def test_trex_dpdk_memif_to_vpp_forwards_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frames TRex sends over its memif ports come back through VPP; the run cleans up."""
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(tmp_path / "state"))
    with ActiveTestbed(load_topology(TOPOLOGY)) as testbed:
        run_id = testbed.run_id
        sockets = [i.memif_socket for i in testbed.topology.tg.interfaces.values()]
        testbed.configure_family(get_family("ethip4-ip4base"))
        tg = testbed.traffic_generator(profile_of("ethip4-ip4base"), 64)
        trial = tg.measure(1.0, RATE_PPS)
        session = testbed.session
        attr = session.client.get_port_attr(0)  # type: ignore[union-attr]
        config = session.config_text  # type: ignore[union-attr]
        options = session.options  # type: ignore[union-attr]
        memifs = testbed.duts["DUT1"].run_cli("show memif")  # type: ignore[attr-defined]
        runtime = testbed.duts["DUT1"].run_cli("show runtime")  # type: ignore[attr-defined]
        for socket in sockets:
            assert socket is not None and Path(socket).exists()
    # TRex's DPDK path: its own memif PMD, no --software, no Linux interface behind the port
    assert attr["driver"] == "net_memif" and attr["link"] == "UP"
    assert "role=server" in config and "socket-abstract=no" in config
    assert options.low_end and not options.software_mode
    # VPP is the memif client of both sockets, its peer TRex's net_memif devices
    assert memifs.count("slave connected") == 2, memifs
    for index, socket in enumerate(sockets):
        assert f'remote-interface "net_memif{index}"' in memifs
        assert str(socket) in memifs
    assert "memif-input" in runtime and "ip4-rewrite" in runtime
    # every frame offered came back (routed by VPP)
    assert trial.offered_count >= 0.99 * trial.intended_count > 0
    assert trial.forwarded_count == trial.offered_count
    # nothing of the run is left: namespaces, sockets (the run directory is gone)
    assert [n for n in netns_list() if n.startswith(f"ndrpdr-{run_id}-")] == []
    assert [s for s in sockets if s is not None and os.path.exists(s)] == []
