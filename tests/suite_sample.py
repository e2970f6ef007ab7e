"""The generated suites a dry run covers: every suite of the first family of each suites/ folder.

Every generated suite comes from one template and differs from its folder's
others only in variables and tags, so a dry run of one family per folder
(all its test types and rows) checks each kind's suites; the whole table's
test names are checked by Robot's parser (``tests/acceptance/test_dryrun.py``)
and the first row of every suite runs for real
(``tests/acceptance/test_generated_suites.py``). A dry run of the whole table
took 47 s at 2546 tests, and one per example topology 24 s each at 4426.
"""

from __future__ import annotations

from ndrpdr.families.registry import builtin_families
from ndrpdr.families.table import Suite, suites


def first_family_per_folder() -> list[Suite]:
    """The suites of the first family (in the table's order) of each suites/ folder."""
    table = suites(builtin_families())
    first: dict[str, str] = {}
    for s in table:
        first.setdefault(s.folder, s.family.id)
    return [s for s in table if first[s.folder] == s.family.id]
