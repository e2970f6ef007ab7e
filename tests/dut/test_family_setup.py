"""``FamilySetup`` asks each driver's description which set-up it takes, never its name."""

from __future__ import annotations

from ndrpdr.dut.base import OTHER_DRIVERS, DutTestConfig, FamilySetup, family_setup_of


class _Vpp:
    """A VPP set-up with nothing in it."""

    plugins: tuple[str, ...] = ()
    settle_s = 0.0

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        return []

    def undo_commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        return []


VPP = _Vpp()


def test_each_builtin_driver_takes_the_set_up_its_description_says() -> None:
    kinds = {name: family_setup_of(name) for name in ("sim", "vpp", "linux", "ovs", "plugin")}
    assert kinds == {"sim": "every", "vpp": "vpp", "linux": "mode", "ovs": "mode", "plugin": "mode"}


def test_runs_on_by_the_set_up_taken() -> None:
    bare = FamilySetup(family="f", modes={})
    assert bare.runs_on("sim")  # every family, named or not
    assert not bare.runs_on("vpp") and not bare.runs_on("linux")
    named = FamilySetup(family="f", modes={"linux": "l2xc"}, vpp=VPP)
    assert named.runs_on("linux") and named.runs_on("vpp") and not named.runs_on("ovs")
    refused = FamilySetup(
        family="f", modes={}, reasons={"sim": "no model for it", OTHER_DRIVERS: "x"}
    )
    assert not refused.runs_on("sim")  # a reason of its own; OTHER_DRIVERS is not one
    assert FamilySetup(family="f", modes={}, reasons={OTHER_DRIVERS: "x"}).runs_on("sim")


def test_the_vpp_set_up_goes_to_a_driver_that_takes_it() -> None:
    setup = FamilySetup(family="f", modes={"linux": "ip4base", "sim": "l2xc"}, vpp=VPP)
    assert setup.vpp_for("vpp") is VPP
    assert setup.vpp_for("linux") is None and setup.vpp_for("sim") is None
    assert FamilySetup(family="f", modes={}).vpp_for("vpp") is None
    assert setup.mode("sim", "ip4base") == "l2xc" and setup.mode("ovs", "l2xc") == "l2xc"


def test_why_not_a_named_reason_the_others_reason_or_who_runs_it() -> None:
    setup = FamilySetup(
        family="f",
        modes={},
        vpp=VPP,
        reasons={"linux": "no", OTHER_DRIVERS: "the {driver} driver: VPP only"},
    )
    assert setup.why_not("linux") == "no"
    assert setup.why_not("ovs") == "the ovs driver: VPP only"
    plain = FamilySetup(family="f", modes={"testpmd": "l2xc"})
    assert plain.why_not("ovs") == "the ovs driver has no set-up for f (it runs on: sim, testpmd)"
