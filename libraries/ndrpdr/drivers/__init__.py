"""Driver descriptions: each TG and DUT driver described once (name, options, factory, kinds).

``DriverDescription`` says what a driver is; ``option`` / ``read_options``
declare and read its typed options; ``registry`` knows every driver.
"""

from ndrpdr.drivers.description import (
    ACCESS_KINDS,
    FAMILY_SETUP_KINDS,
    AccessKind,
    DriverDescription,
    FamilySetupKind,
    Software,
)
from ndrpdr.drivers.options import option, option_docs, option_names, options_schema, read_options
from ndrpdr.drivers.registry import describe, descriptions, driver_names, find, register

__all__ = [
    "ACCESS_KINDS",
    "FAMILY_SETUP_KINDS",
    "AccessKind",
    "DriverDescription",
    "FamilySetupKind",
    "Software",
    "describe",
    "descriptions",
    "driver_names",
    "find",
    "option",
    "option_docs",
    "option_names",
    "options_schema",
    "read_options",
    "register",
]
