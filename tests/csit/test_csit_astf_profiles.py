"""The ASTF and SFDP families' ASTF profiles against CSIT's, as TRex's client library builds them.

The frame comparison (``test_csit_traffic_real.py``) captures what TRex's
stateless field engine sends and leaves the stateful (ASTF) families out:
their frames come from TRex's TCP/UDP stack at run time. What an ASTF
profile is, though, TRex's client library says without a server: its
``ASTFProfile.to_json_str()`` is what TRex loads. So each stateful family's
profile (``trafficgen/trex/astf/profile.py`` on the family's
``Transactions``: the ``astf`` kind's 8 and the ``sfdp`` kind's 32) and
CSIT's ``${traffic_profile}`` (read from CSIT's git directory into a
temporary folder, with its base class) are built at each
of the suite's frame sizes, in a child Python with TRex v3.08's client on
its path, and compared: the client and server address ranges and their
distribution, the template (port, limit, cps), TCP's MSS and buffers and
the payload sizes must be equal (CSIT pads with random letters, we with
``x``: only lengths compared); the programs must differ only as declared
in ``PROGRAM_DIFFERENCES``. Skipped without CSIT's git directory or
TRex's client library.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from csit_schema_source import csit_git_or_skip, git_show
from ndrpdr.families.kinds.astf.defs import FAMILIES as ASTF_FAMILIES
from ndrpdr.families.kinds.sfdp.defs import FAMILIES as SFDP_FAMILIES
from ndrpdr.families.table import frames_of
from ndrpdr.profiles.transactions import SERVER_PORT
from ndrpdr.trafficgen.trex.astf import profile as astfprofile

TREX_CLIENT = Path("/opt/trex/v3.08/automation/trex_control_plane/interactive")
PROFILES = "GPL/traffic_profiles/trex"
BASE = "profile_trex_astf_base_class"

#: The programs' commands (client's, server's) where ours differ from CSIT's, and why, by
#: (protocol, kind); the same in every scale and frame size. UDP tput's are equal.
PROGRAM_DIFFERENCES: dict[tuple[str, str], tuple[Any, Any, str]] = {
    ("udp", "cps"): (
        [["tx_msg"], ["rx_msg", "tx_msg"]],
        [["tx_msg"], ["tx_msg"]],
        "our server answers once it has the request; CSIT's sends its response unprompted",
    ),
    ("tcp", "cps"): (
        [["connect"], ["connect", "nc"]],
        [["connect", "rx"], ["connect", "nc"]],
        "CSIT's client waits for 0 bytes after connecting (a no-op TRex keeps)",
    ),
    ("tcp", "tput"): (
        [["connect", "set_var", "tx", "rx", "jmp_nz"],
         ["connect", "set_var", "rx", "tx", "jmp_nz", "nc"]],
        [["connect", "set_var", "tx", "rx", "jmp_nz"],
         ["connect", "set_var", "rx", "tx", "jmp_nz"]],
        "our server waits for the client's close; CSIT's program ends after its last echo",
    ),
}  # fmt: skip

_BUILD = """
import json, runpy, sys, warnings
warnings.simplefilter("ignore")
trex, folder, ours = sys.argv[1:4]
sys.path[:0] = [trex, folder]
import trex.astf.api as api
mine = runpy.run_path(ours)
out = []
for item in json.loads(sys.stdin.read()):
    theirs = runpy.run_path(f"{folder}/{item['csit']}.py")["register"]()
    csit = theirs.get_profile(framesize=item["size"], n_data_frames=item["data_frames"])
    built = mine["build_astf_profile"](api, item["spec"])
    out.append([json.loads(built.to_json_str()), json.loads(csit.to_json_str())])
print(json.dumps(out))
"""


def _normal(profile: dict[str, Any]) -> dict[str, Any]:
    """The profile with its payloads as their lengths and its programs as command names."""
    out = dict(profile)
    out["buf_list"] = [len(base64.b64decode(b)) for b in profile["buf_list"]]
    out["program_list"] = [[c["name"] for c in p["commands"]] for p in profile["program_list"]]
    return out


def _cases() -> list[dict[str, Any]]:
    """One build per TG profile, frame size and spec of ours (the services do not change the
    traffic; a family whose spec differs from another's of the same CSIT profile, as the
    astf kind's 16.0.0.0/16 clients once did, is a case of its own and fails)."""
    seen: dict[tuple[str, int, str], dict[str, Any]] = {}
    for family in (*ASTF_FAMILIES, *SFDP_FAMILIES):
        traffic = family.profile.transactions
        assert traffic is not None and family.csit_profile is not None
        for size in frames_of(family):
            assert isinstance(size, int)
            spec = astfprofile.astf_spec(
                traffic, size, traffic.clients, traffic.servers, SERVER_PORT
            )
            key = (family.csit_profile, size, json.dumps(spec, sort_keys=True))
            seen.setdefault(key, {
                "csit": family.csit_profile, "size": size, "spec": spec,
                "data_frames": traffic.data_frames, "kind": (traffic.protocol, traffic.kind),
            })  # fmt: skip
    return list(seen.values())


@pytest.mark.skipif(not TREX_CLIENT.is_dir(), reason=f"TRex's client is not at {TREX_CLIENT}")
def test_stateful_astf_profiles_are_csits_as_trex_compiles_them(tmp_path: Path) -> None:
    git_dir = csit_git_or_skip()
    cases = _cases()
    # 4 scales x (2 cps at 64B + 2 tput x 100B, 1518B, 9000B); the astf kind's 8 families
    # build what the sfdp kind's h65536 ones do (else 8 more cases, compared and failing)
    assert len(cases) == 32
    for name in {BASE, *(case["csit"] for case in cases)}:
        (tmp_path / f"{name}.py").write_text(git_show(git_dir, f"{PROFILES}/{name}.py"))
    done = subprocess.run(
        [sys.executable, "-I", "-c", _BUILD, str(TREX_CLIENT), str(tmp_path),
         astfprofile.__file__],
        input=json.dumps([{k: v for k, v in c.items() if k != "kind"} for c in cases]),
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    found = []
    for case, (ours, theirs) in zip(cases, json.loads(done.stdout.splitlines()[-1]), strict=True):
        mine, csit = _normal(ours), _normal(theirs)
        where = f"{case['csit']} at {case['size']}B"
        programs = PROGRAM_DIFFERENCES.get(case["kind"])
        if programs is None:
            assert mine["program_list"] == csit["program_list"], where
        else:
            assert (mine["program_list"], csit["program_list"]) == programs[:2], where
        for key in sorted((set(mine) | set(csit)) - {"program_list", "buf_list"}):
            if mine.get(key) != csit.get(key):
                found.append(f"{where}: {key}: ours {mine.get(key)}, CSIT's {csit.get(key)}")
        if sorted(set(mine["buf_list"])) != sorted(set(csit["buf_list"])):
            found.append(f"{where}: payload sizes ours {mine['buf_list']}, {csit['buf_list']}")
    assert not found, "\n".join(found)
