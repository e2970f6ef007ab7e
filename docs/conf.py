"""Sphinx configuration of the manual: ``python3 -m tox -e docs`` builds it (docs/_build/html)."""

from __future__ import annotations

import sys
from pathlib import Path

_DOCS = Path(__file__).resolve().parent
# The extension (docs/_ext) and the library it documents (libraries/), also without an install.
sys.path[:0] = [str(_DOCS / "_ext"), str(_DOCS.parent / "libraries")]

from ndrpdr.results.record import RECORD_VERSION  # noqa: E402 (after the path above)

project = "ndrpdr"
author = "the ndrpdr authors"
extensions = ["ndrpdrdocs"]
root_doc = "index"
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["ndrpdr.css"]
html_theme_options = {
    "description": "NDR/PDR throughput testing as Robot Framework keywords",
    # The generated tables (families, record fields) need more than alabaster's 940 px.
    "page_width": "min(1400px, 96%)",
    "body_max_width": "none",
}
# Every reference must resolve (-n in tox.ini says the same).
nitpicky = True
# No network here nor in CI: linkcheck checks the local links (pages, files, the keyword docs) only.
linkcheck_ignore = [r"https?://"]
# |record_version|: the record format the code writes now (results.rst).
rst_prolog = f".. |record_version| replace:: {RECORD_VERSION}\n"
