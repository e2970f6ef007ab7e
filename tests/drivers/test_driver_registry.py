"""The built-in driver descriptions: complete, consistent, and the one source of schema and docs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ndrpdr.cli.main import main
from ndrpdr.drivers import (
    ACCESS_KINDS,
    DriverDescription,
    describe,
    descriptions,
    driver_names,
    find,
    option_names,
    read_options,
    register,
)
from ndrpdr.drivers.docs import drivers_text
from ndrpdr.topology.schema import build_schema, schema_text, shipped_schema_path

ROOT = Path(__file__).resolve().parents[2]


def test_every_builtin_driver_is_described() -> None:
    assert driver_names("TG") == ("sim", "local", "trex")
    assert driver_names("DUT") == ("sim", "linux", "testpmd", "l3fwd", "ovs", "vpp")
    for description in descriptions():
        assert description.access and set(description.access) <= set(ACCESS_KINDS)
        assert description.duts == (1, 2)  # every driver runs 2-node and 3-node chains
        assert option_names(description.options)  # every driver takes options
        # the defaults are valid options
        read_options(description.options, {}, lambda f, d: AssertionError(f"{f}: {d}"))
        assert (description.session is not None) == (description.name == "trex")
        assert (description.port_driver is not None) == (description.role == "DUT")
        assert description.version is not None  # every driver's version reaches the records
    setups = {d.name: d.family_setup for d in descriptions("DUT")}
    assert setups == {
        "sim": "every",
        "linux": "mode",
        "testpmd": "mode",
        "l3fwd": "mode",
        "ovs": "mode",
        "vpp": "vpp",
    }


def test_lookup() -> None:
    assert describe("DUT", "vpp").name == "vpp" and find("TG", "vpp") is None
    with pytest.raises(LookupError, match="no TG driver 'ixia'; TG drivers: sim, local, trex"):
        describe("TG", "ixia")


def test_a_second_driver_of_a_name_is_refused() -> None:
    twin = dataclasses.replace(describe("DUT", "linux"), summary="another linux")
    with pytest.raises(ValueError, match="a DUT driver 'linux' exists already"):
        register(twin)
    assert describe("DUT", "linux").summary != "another linux"


def test_descriptions_check_themselves() -> None:
    base = describe("DUT", "linux")
    with pytest.raises(ValueError, match="access"):
        dataclasses.replace(base, access=("telnet",))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="default_access"):
        dataclasses.replace(base, default_access="local")
    with pytest.raises(ValueError, match="only a TG driver has a session"):
        DriverDescription(**{**dataclasses.asdict(base), "session": object})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="family_setup 'all' is not valid"):
        dataclasses.replace(base, family_setup="all")  # type: ignore[arg-type]


def test_port_drivers_give_the_drv_tags() -> None:
    testpmd = describe("DUT", "testpmd").port_driver
    vpp = describe("DUT", "vpp").port_driver
    assert testpmd is not None and vpp is not None
    from ndrpdr.topology.model import Node, SshAccess

    def node(options: dict[str, object], **extra: object) -> Node:
        return Node("DUT1", "DUT", "testpmd", SshAccess(host="h"), {}, options, extra)

    assert testpmd(node({})) == "af_packet"
    assert testpmd(node({"pmd": "af_xdp"})) == "af_xdp"
    assert testpmd(node({"pmd": "pci"})) == "vfio-pci"
    assert testpmd(node({"pmd": "pci"}, uio_driver="uio_pci_generic")) == "uio_pci_generic"
    assert testpmd(node({"pmd": "pci", "bind_driver": "none"})) == "none"
    assert vpp(node({}, uio_driver="igb_uio")) == "igb_uio" and vpp(node({})) == "vfio-pci"


def test_schema_file_is_the_built_schema() -> None:
    shipped = shipped_schema_path().read_text(encoding="utf-8")
    assert shipped == schema_text(), (
        "topology.schema.json is out of date: run python -m ndrpdr.topology.schema"
    )
    schema = build_schema()
    for description in descriptions():
        name = f"options_{description.role.lower()}_{description.name}"
        properties = schema["$defs"][name]["properties"]
        assert list(properties) == list(option_names(description.options))
    rules = schema["$defs"]["node"]["allOf"]
    enums = [
        r["then"]["properties"]["driver"]["enum"]
        for r in rules
        if "driver" in r["then"]["properties"]
    ]
    assert enums == [list(driver_names("TG")), list(driver_names("DUT"))]


def test_the_manual_lists_the_drivers_as_they_describe_themselves() -> None:
    # docs/reference/drivers.rst holds drivers_text(), generated and committed (its staleness
    # is tests/test_reference_docs.py's); docs/drivers.rst links to it. The text names every
    # driver and every option it has.
    page = (ROOT / "docs" / "drivers.rst").read_text(encoding="utf-8")
    assert "<reference/drivers.rst>`" in page, "docs/drivers.rst does not link the drivers"
    text = drivers_text()
    assert text in (ROOT / "docs" / "reference" / "drivers.rst").read_text(encoding="utf-8")
    for description in descriptions():
        assert f"\n``{description.name}`` ({description.role})\n" in f"\n{text}"
        for name in option_names(description.options):
            assert f"- ``{name}`` (" in text, f"{description.name}: option {name} missing"


def test_drivers_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["drivers", "trex", "testpmd"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("``trex`` (TG)\n")
    assert "\n``testpmd`` (DUT)\n" in out and "``vpp``" not in out
    assert "    - ``hugepage_size_kb`` (2048 | 1048576; default 2048): size of those" in out
    assert main(["drivers", "ixia"]) == 1
    assert "no driver 'ixia'; drivers: l3fwd, linux, local, ovs, sim, testpmd, trex, vpp" in (
        capsys.readouterr().err
    )
