"""The commands that build and remove a local testbed, batched to keep forks few.

* ``ip -batch -``: all namespaces, then all veth pairs (created straight into
  their namespaces, MACs set), in one process each;
* one ``ip netns exec NS sh -c SCRIPT`` per namespace: IPv6 off, RPS masks
  (its own /sys), the nft TG sink (``nft -f -`` from stdin), interfaces up;
* ``ip -force -batch -``: delete interfaces the run made in the root
  namespace (deleting one end of a veth deletes the pair at once, while a
  deleted namespace's veths go only when the kernel frees the namespace,
  asynchronously), then namespaces (their veths go with them).

Interface and namespace names were validated by the plan (letters, digits,
``_.-``), and shell words are quoted besides.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from ndrpdr.access.base import CommandError, NodeAccessError
from ndrpdr.access.local import LocalTransport
from ndrpdr.access.netns import NetnsTransport
from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.plan import NamespaceSetup, VethPair
from ndrpdr.localbed.procs import NETNS_RUN_DIR

#: nft table (netdev family, in the TG namespace) that drops what reaches the TG ports.
SINK_TABLE = "ndrpdr_tgsink"

#: The runner's network interfaces (its /sys belongs to its own network namespace).
SYS_CLASS_NET = Path("/sys/class/net")

#: Timeout of one plumbing command [s].
COMMAND_TIMEOUT_S = 30.0


def netns_add_batch(namespaces: Sequence[str]) -> str:
    """``ip -batch`` lines creating ``namespaces``."""
    return "".join(f"netns add {ns}\n" for ns in namespaces)


def netns_del_batch(namespaces: Sequence[str]) -> str:
    """``ip -batch`` lines deleting ``namespaces``."""
    return "".join(f"netns del {ns}\n" for ns in namespaces)


def _veth_side(
    name: str, mac: str | None, namespace: str, queues: int = 1, mtu: int | None = None
) -> str:
    address = f" address {mac}" if mac else ""
    many = f" numtxqueues {queues} numrxqueues {queues}" if queues > 1 else ""
    size = f" mtu {mtu}" if mtu is not None else ""
    return f"{name}{address}{size} netns {namespace}{many}"


def veth_batch(pairs: Sequence[VethPair]) -> str:
    """``ip -batch`` lines creating each veth pair directly in its two namespaces (down),
    each end with the pair's queues and MTU."""
    return "".join(
        f"link add {_veth_side(p.a.name, p.a.mac, p.a.namespace, p.queues, p.mtu)} type veth "
        f"peer name {_veth_side(p.b.name, p.b.mac, p.b.namespace, p.queues, p.mtu)}\n"
        for p in pairs
    )


def sink_ruleset(interfaces: Sequence[str]) -> str:
    """nft ruleset: a netdev table with one ingress chain per interface, ``counter drop``."""
    chains = "".join(
        f'  chain in{i} {{ type filter hook ingress device "{name}" priority 0; '
        "policy accept; counter drop; }\n"
        for i, name in enumerate(interfaces)
    )
    return f"table netdev {SINK_TABLE} {{\n{chains}}}\n"


def namespace_script(setup: NamespaceSetup) -> str:
    """The ``sh`` script run inside the namespace (nft ruleset, if any, on stdin)."""
    lines = [
        "set -e",
        "if [ -d /proc/sys/net/ipv6 ]; then",
        "  echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6",
        "  echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6",
        "fi",
    ]
    queues = dict(setup.queues)
    for name, mask in setup.rps:
        for queue in range(queues.get(name, 1)):
            path = f"/sys/class/net/{name}/queues/rx-{queue}/rps_cpus"
            lines.append(f"echo {shlex.quote(mask)} > {shlex.quote(path)}")
    if setup.sink:
        lines.append("nft -f -")
    lines.extend(f"ip link set dev {shlex.quote(name)} up" for name in setup.up)
    return "\n".join(lines) + "\n"


def _fail(step: str, exc: Exception) -> LocalTestbedError:
    return LocalTestbedError(f"local testbed {step} failed: {exc}")


def run_ip_batch(batch: str, step: str, *, force: bool = False) -> None:
    """Run ``batch`` with one ``ip -batch -``; LocalTestbedError naming ``step`` on failure."""
    if not batch:
        return
    argv = ["ip", *(["-force"] if force else []), "-batch", "-"]
    try:
        LocalTransport("localhost").run(argv, stdin=batch, timeout_s=COMMAND_TIMEOUT_S)
    except CommandError as exc:
        failed = re.search(r"Command failed -:(\d+)", exc.result.stderr)
        lines = batch.splitlines()
        if failed and 0 < int(failed.group(1)) <= len(lines):
            line = lines[int(failed.group(1)) - 1]
            raise LocalTestbedError(f"local testbed {step} failed at `ip {line}`: {exc}") from exc
        raise _fail(step, exc) from exc
    except NodeAccessError as exc:
        raise _fail(step, exc) from exc


def configure_namespace(setup: NamespaceSetup) -> None:
    """Run the namespace's script (IPv6 off, RPS, TG sink, links up)."""
    transport = NetnsTransport(",".join(setup.nodes), setup.namespace)
    stdin = sink_ruleset(setup.sink) if setup.sink else None
    try:
        transport.run(
            ["sh", "-c", namespace_script(setup)], stdin=stdin, timeout_s=COMMAND_TIMEOUT_S
        )
    except (CommandError, NodeAccessError) as exc:
        raise _fail(f"configuration of namespace {setup.namespace}", exc) from exc


def link_del_batch(interfaces: Sequence[str]) -> str:
    """``ip -batch`` lines deleting ``interfaces`` (of the runner's namespace)."""
    return "".join(f"link del dev {name}\n" for name in interfaces)


def existing_links(interfaces: Sequence[str]) -> list[str]:
    """Those of ``interfaces`` that exist now in the runner's network namespace."""
    return [name for name in interfaces if (SYS_CLASS_NET / name).exists()]


def delete_links(interfaces: Sequence[str]) -> list[str]:
    """Delete those of ``interfaces`` that exist in the runner's namespace; return them.

    Missing ones are no error (a veth end also goes when its peer's
    namespace is freed); LocalTestbedError names those that remain.
    """
    return _delete_present(interfaces, existing_links, link_del_batch, "interface removal")


def existing_namespaces(namespaces: Sequence[str]) -> list[str]:
    """Those of ``namespaces`` that exist now (have a file under /run/netns)."""
    return [ns for ns in namespaces if (NETNS_RUN_DIR / ns).exists()]


def delete_namespaces(namespaces: Sequence[str]) -> list[str]:
    """Delete those of ``namespaces`` that exist; return them. Missing ones are no error."""
    return _delete_present(namespaces, existing_namespaces, netns_del_batch, "namespace removal")


def _delete_present(
    names: Sequence[str],
    existing: Callable[[Sequence[str]], list[str]],
    batch: Callable[[Sequence[str]], str],
    step: str,
) -> list[str]:
    """Delete those of ``names`` that ``existing`` finds with one ``ip -force -batch``.

    A batch that fails is no error when what it was to delete is gone
    anyway; LocalTestbedError names those that remain.
    """
    present = existing(names)
    if present:
        try:
            run_ip_batch(batch(present), step, force=True)
        except LocalTestbedError:
            still = existing(present)
            if still:
                raise LocalTestbedError(
                    f"local testbed {step} failed: {', '.join(still)} remain"
                ) from None
    return present
