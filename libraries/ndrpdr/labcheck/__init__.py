"""``ndrpdr check``: a testbed's smoke test before a night's run, one line per step.

``run_check`` loads the topology, reaches every node through the access
the drivers use, compares the versions of VPP and TRex installed there
with the ones the drivers support, finds the ports the file names and
compares their MACs, then sends one short trial. Each step gives an
``Outcome``: ``PASS <step>: <what>``, ``FAIL <step>: <what> — fix: <how>``,
or ``SKIP <step>: <why>`` when an earlier failure leaves nothing to check.
"""

from ndrpdr.labcheck.outcome import Outcome, Status
from ndrpdr.labcheck.run import CheckSettings, TrialFn, run_check

__all__ = ["CheckSettings", "Outcome", "Status", "TrialFn", "run_check"]
