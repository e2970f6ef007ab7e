"""The manual's Sphinx extension: links to pages by file, the reference's freshness, Libdoc.

- A link to a page by its file, ```Drivers <../drivers.rst>`__``, is what a
  code host follows; Sphinx is made to follow it too, to that page's HTML
  (a link to a file that is no page of the manual fails the build).
- The reference pages (``docs/reference/*.rst``) are generated from the code
  and committed (``genreference.py``); a stale one is a warning, so ``-W``
  fails the build naming it and the command that writes it.
- The Libdoc of ``NdrPdrLibrary`` is written to ``_static/NdrPdrLibrary.html``
  before the pages are read, so it is copied into the HTML output and the
  pages' links to it are checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from genreference import COMMAND, stale_pages
from robot.libdoc import libdoc
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import ExtensionError
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

#: Page names Sphinx keeps for pages of its own (a page of ours so named would be replaced).
RESERVED = frozenset({"search", "genindex", "modindex"})
#: Where the keyword documentation is written, relative to the manual's source directory.
LIBDOC = Path("_static") / "NdrPdrLibrary.html"

logger = logging.getLogger(__name__)


class PageLinks(SphinxTransform):
    """Links to ``*.rst`` files (relative, no scheme) become references to those pages,
    resolved as ``:doc:`` is: unknown ones are reported where they are."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        """Replace each such link with a pending cross-reference to its page."""
        for node in list(self.document.findall(nodes.reference)):
            uri = str(node.get("refuri", ""))
            if not uri.endswith(".rst") or ":" in uri or uri.startswith("/"):
                continue
            xref = addnodes.pending_xref(
                "",
                *node.children,
                refdomain="std",
                reftype="doc",
                reftarget=uri.removesuffix(".rst"),
                refexplicit=True,
                refwarn=True,
                refdoc=self.env.docname,
            )
            xref.source, xref.line = node.source, node.line
            node.replace_self(xref)


def check_reference(app: Sphinx) -> None:
    """Warn about each reference page that differs from what the code says."""
    for name in stale_pages(Path(app.srcdir) / "reference"):
        logger.warning("docs/reference/%s is stale: the code says otherwise; run %s", name, COMMAND)


def write_libdoc(app: Sphinx) -> None:
    """Write NdrPdrLibrary's Libdoc into the source tree's _static (ExtensionError on failure).

    Every HTML build writes it anew; another builder (linkcheck, after the HTML build in
    tox's docs env) only when it is missing.
    """
    target = Path(app.srcdir) / LIBDOC
    if app.builder.format != "html" and target.is_file():
        return
    target.parent.mkdir(exist_ok=True)
    status = libdoc("NdrPdrLibrary", str(target), name="NdrPdrLibrary", quiet=True)
    if status != 0 or not target.is_file():
        raise ExtensionError(f"Libdoc of NdrPdrLibrary failed (status {status}); {target} missing")


def reserved_names(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """No page to read again; ExtensionError for a page named as one of Sphinx's own."""
    taken = sorted(RESERVED & env.found_docs)
    if taken:
        raise ExtensionError(f"docs/{taken[0]}.rst: Sphinx writes its own page of that name")
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the page links, the reference check and the Libdoc step."""
    app.add_transform(PageLinks)
    app.connect("builder-inited", check_reference)
    app.connect("builder-inited", write_libdoc)
    app.connect("env-get-outdated", reserved_names)
    return {"version": "2", "parallel_read_safe": True, "parallel_write_safe": True}
