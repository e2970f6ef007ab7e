"""A TRex server of its own for each local run: its config file and DPDK prefix named per run.

On a lab TG, TRex owns the host: ``/etc/trex_cfg.yaml`` and DPDK's default
runtime directory are its own. On the local testbed the TG is a network
namespace of *this* machine, which shares its file system with every other
run going on here; two runs writing ``/etc/trex_cfg.yaml`` or sharing a
DPDK ``--prefix`` (``/var/run/dpdk/<prefix>``) would step on each other.
So when the TG is reached through a network namespace (netns access), the
options are made per run, unless the topology gives them:

* ``config_path``: ``/tmp/<namespace>-trex_cfg.yaml`` (the namespace name
  is unique per run and node: ``ndrpdr-<run id>-<name>``);
* ``extra_args`` get ``--prefix <namespace>`` when they name no prefix.

Both paths (the config file and ``/var/run/dpdk/<prefix>``) are given to
the run's ``track_path`` when the access has one (a local testbed's
transport), so the run's teardown, or the clean-up of a crashed run,
removes them; the server's ``stop`` removes the DPDK directory as well.
Pure except for that call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ndrpdr.access.base import NodeAccess
from ndrpdr.access.netns import NetnsTransport
from ndrpdr.trafficgen.trex.options import TrexOptions
from ndrpdr.trafficgen.trex.server import DPDK_RUN_DIR, dpdk_prefix

#: Where a per-run config file goes (a directory every run can write).
RUN_CONFIG_DIR = "/tmp"


def run_config_path(namespace: str) -> str:
    """The per-run trex_cfg.yaml of a TG in network namespace ``namespace``."""
    return f"{RUN_CONFIG_DIR}/{namespace}-trex_cfg.yaml"


def per_run_options(
    options: TrexOptions, given: Mapping[str, Any], access: NodeAccess | None
) -> TrexOptions:
    """``options`` with a per-run config path and DPDK prefix when the TG is a local namespace.

    ``given``: the TG node's options as the topology wrote them (what is
    there is kept as given); ``access``: the TG's node access. A TG not
    reached through a NetnsTransport gets ``options`` unchanged.
    """
    if not isinstance(access, NetnsTransport):
        return options
    namespace = access.namespace
    changes: dict[str, Any] = {}
    if "config_path" not in given:
        changes["config_path"] = run_config_path(namespace)
    prefix = dpdk_prefix(options.extra_args)
    if prefix is None:
        prefix = namespace
        changes["extra_args"] = (*options.extra_args, "--prefix", prefix)
    result = dataclasses.replace(options, **changes) if changes else options
    track = getattr(access, "track_path", None)
    if callable(track):
        if "config_path" not in given:
            track(result.config_path)
        track(f"{DPDK_RUN_DIR}/{prefix}")
    return result
