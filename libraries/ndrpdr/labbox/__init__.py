"""The lab in a box: each node of a lab topology is a network namespace acting as a host.

``LabboxHosts`` turns namespaces of a ``LocalTestbed`` into SSH hosts (a
management veth from the runner's namespace, an sshd with private /tmp and
/run/dpdk), so the lab code path (SSH, TRex server lifecycle, lab DUT
drivers) runs for real on one machine.
"""

from ndrpdr.labbox.errors import LabboxError
from ndrpdr.labbox.hosts import LabboxHost, LabboxHosts

__all__ = ["LabboxError", "LabboxHost", "LabboxHosts"]
