"""Test families, each described once under its CSIT id (``ndrpdr.families.model.Family``).

``get_family("ethip6-ip6base")`` gives one, ``all_families()`` all of them
(the built-in ones and a lab's own, see ``ndrpdr.families.registry``).
"""

from ndrpdr.families.model import Family, FamilyDefinitionError
from ndrpdr.families.registry import (
    FAMILIES_ENV,
    FamilyError,
    all_families,
    family_ids,
    get_family,
    profile_of,
)

__all__ = [
    "FAMILIES_ENV",
    "Family",
    "FamilyDefinitionError",
    "FamilyError",
    "all_families",
    "family_ids",
    "get_family",
    "profile_of",
]
