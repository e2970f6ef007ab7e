"""The VPP set-ups: one base with every optional member's default, typed reads, the id passed down.

The vpp driver reads what a family asks of it through the ``VppSetup``
protocol's members, never by name (``getattr``), so mypy rejects a
misspelt member; every built-in set-up derives from ``VppSetupBase`` and
takes the defaults it does not change from there; ``Family`` gives its id
to its set-ups.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import inspect
from pathlib import Path

import pytest
from mypy import api as mypy_api

from ndrpdr.dut.accel import DsaDma, FlowOffload, QatCrypto
from ndrpdr.dut.base import FamilySetup, StateCheck, TrialReset, VppSetup
from ndrpdr.families import Family, FamilyDefinitionError, all_families, get_family
from ndrpdr.families.build import setup
from ndrpdr.families.kinds.nat.vpp import NatVpp
from ndrpdr.families.vppsetup import FreshVpp, VppSetupBase

ROOT = Path(__file__).resolve().parents[2]
#: Every member of the protocol the vpp driver reads.
MEMBERS = sorted(name for name in vars(VppSetup) if not name.startswith("_"))
#: What each optional member must be (the protocol's types).
TYPES: dict[str, type | tuple[type, ...]] = {
    "settle_s": (int, float),
    "startup": str,
    "heap_size_mult": int,
    "fresh": bool,
    "rx_workers": (int, type(None)),
    "peer_commands": tuple,
    "state_check": (StateCheck, type(None)),
    "hardware": (QatCrypto, DsaDma, FlowOffload, type(None)),
    "trial_reset": (TrialReset, type(None)),
    "plugins": tuple,
    "guest": (str, type(None)),
}
VPP_FAMILIES = [f for f in all_families() if f.setup.vpp is not None]


def test_the_protocol_declares_every_member_the_base_gives() -> None:
    base = {name for name in vars(VppSetupBase) if isinstance(vars(VppSetupBase)[name], property)}
    assert base <= set(MEMBERS)
    assert set(MEMBERS) - base == {"plugins", "commands", "undo_commands", "guest_commands"}
    assert set(TYPES) | {"commands", "undo_commands", "guest_commands"} == set(MEMBERS)


@pytest.mark.parametrize("family", VPP_FAMILIES, ids=lambda f: f.id)
def test_every_builtin_vpp_setup_derives_from_the_base(family: Family) -> None:
    vpp = family.setup.vpp
    assert isinstance(vpp, VppSetupBase), f"{family.id}: {type(vpp).__name__}"
    assert vpp.family == family.setup.family == family.id
    for name, kind in TYPES.items():
        value = getattr(vpp, name)
        assert isinstance(value, kind), f"{family.id}: {name} = {value!r}"
    assert all(
        callable(getattr(vpp, name)) for name in ("commands", "undo_commands", "guest_commands")
    )


@pytest.mark.parametrize(
    "cls", sorted({type(f.setup.vpp) for f in VPP_FAMILIES}, key=lambda c: c.__qualname__)
)
def test_no_setup_class_misspells_a_member(cls: type) -> None:
    """A name close to a member but not it (``fressh``, ``rx_worker``) would be ignored."""
    own = {name for klass in cls.__mro__ if klass is not object for name in vars(klass)}
    own |= {field.name for field in dataclasses.fields(cls)}
    for name in own - set(MEMBERS):
        close = difflib.get_close_matches(name, MEMBERS, n=1, cutoff=0.8)
        assert not close, f"{cls.__qualname__}.{name}: did you mean {close[0]}?"


def test_fresh_setups_say_so_once_in_fresh_vpp() -> None:
    fresh = {type(f.setup.vpp) for f in VPP_FAMILIES if f.setup.vpp and f.setup.vpp.fresh}
    assert len(fresh) >= 12
    for cls in fresh:
        assert issubclass(cls, FreshVpp), cls.__qualname__
        assert "fresh" not in vars(cls), f"{cls.__qualname__} repeats FreshVpp's fresh"
    assert not get_family("ethip4-ip4base").setup.vpp.fresh  # type: ignore[union-attr]


def test_the_vpp_driver_and_the_state_count_read_no_member_by_name() -> None:
    for path in ("libraries/ndrpdr/dut/vpp/family.py", "libraries/ndrpdr/activebed/statecount.py"):
        tree = ast.parse((ROOT / path).read_text())
        by_name = [
            node.args[1].value
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "getattr"
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in MEMBERS
        ]
        assert not by_name, f"{path} reads {by_name} by name"
    source = (ROOT / "libraries/ndrpdr/dut/vpp/family.py").read_text()
    assert "getattr(" not in source


def test_mypy_rejects_a_misspelt_member(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = tmp_path / "typo.py"
    snippet.write_text(
        "from ndrpdr.dut.base import VppSetup\n"
        "from ndrpdr.families.kinds.nat.vpp import NatVpp\n\n\n"
        "def fresh(setup: VppSetup) -> bool:\n"
        "    return setup.fressh\n\n\n"
        'NAT = NatVpp("det44", 1, famly="x")\n'
    )
    monkeypatch.setenv("MYPYPATH", str(ROOT / "libraries"))
    out, _, status = mypy_api.run(
        ["--strict", "--no-incremental", "--follow-imports=silent", "--config-file=", str(snippet)]
    )
    assert status == 1, out
    assert '"VppSetup" has no attribute "fressh"; maybe "fresh"?' in out, out
    assert 'Unexpected keyword argument "famly" for "NatVpp"' in out, out


def _family(vpp: VppSetupBase, family_id: str = "my-nat") -> Family:
    profile = dataclasses.replace(get_family("ethip4-ip4base").profile, name=family_id)
    return Family(id=family_id, tags=("NAT44",), profile=profile, setup=setup(vpp=vpp))


def test_the_family_passes_its_id_down_and_the_setup_checks_then() -> None:
    family = _family(NatVpp("det44", 8))
    assert isinstance(family.setup, FamilySetup) and family.setup.family == "my-nat"
    assert family.setup.vpp == NatVpp("det44", 8, family="my-nat")
    unbound = NatVpp("nat64", 8)  # not checked until a family has it
    with pytest.raises(FamilyDefinitionError, match=r"family my-nat: mode 'nat64' is not one of"):
        _family(unbound)


def test_a_copied_family_hands_its_own_id_down() -> None:
    """A lab may copy a built-in family under its own id (``dataclasses.replace``)."""
    base = get_family("ethip4ipsec4tnlsw-ip4base-int-aes256gcm")
    profile = dataclasses.replace(base.profile, name="my-ipsec")
    copy = dataclasses.replace(base, id="my-ipsec", profile=profile)
    assert copy.setup.family == copy.setup.vpp.family == "my-ipsec"  # type: ignore[union-attr]
    assert base.setup.vpp.family == base.id  # type: ignore[union-attr]


def test_the_base_defaults_are_what_the_driver_did_without_them() -> None:
    base = VppSetupBase()
    assert (base.settle_s, base.startup, base.heap_size_mult, base.fresh) == (0.0, "", 1, False)
    assert (base.rx_workers, base.peer_commands, base.state_check) == (None, (), None)
    assert inspect.signature(VppSetupBase).parameters["family"].kind is (
        inspect.Parameter.KEYWORD_ONLY
    )


def test_a_lab_file_giving_setup_an_id_is_told_why() -> None:
    with pytest.raises(FamilyDefinitionError, match=r"setup\('my-lab', ...\): give no family id"):
        setup("my-lab", {"linux": "ip4base"})  # type: ignore[arg-type]


def test_a_vpp_setup_not_derived_from_the_base_is_refused() -> None:
    class Bare:
        plugins: tuple[str, ...] = ()

    with pytest.raises(FamilyDefinitionError, match=r"my-nat: its VPP set-up \(Bare\) must derive"):
        _family(Bare())  # type: ignore[arg-type]
