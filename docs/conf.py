"""Sphinx configuration: the API reference from the numpydoc docstrings, the notebooks as pages.

Built offline and without executing anything: ``python -m sphinx -W -b html docs <out>``
(``tests/test_docs.py`` does exactly that, warnings as errors).
"""

import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)  # document this checkout, also when it is not installed

import slimwidgets  # noqa: E402

project = "slimwidgets"
author = "the slimwidgets authors"
copyright = "2026, the slimwidgets authors"
release = slimwidgets.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",
]

# Pages: Markdown (MyST) and the notebooks under notebooks/ (a link to ../notebooks).
# The notebooks are stored without outputs and rendered as they are: nothing is executed.
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
nb_execution_mode = "off"
exclude_patterns = ["_build", "notebooks/README.md", "notebooks/.ipynb_checkpoints"]
myst_heading_anchors = 3

# API reference: hand-written pages with autosummary tables (no generated stub files, so a
# build writes nothing into the source tree) and autodoc entries rendered by numpydoc.
autosummary_generate = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the signatures and the numpydoc "Parameters" already say it
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Offline: no inventories fetched from other projects' sites.
intersphinx_mapping = {}

html_theme = "alabaster"
html_static_path = ["_static"]
html_title = f"slimwidgets {release}"
html_theme_options = {
    "description": "Exactly optimized integer scoring systems",
    "fixed_sidebar": True,
}


# The table of options (docs/api/options.rst) is generated from slimwidgets.core.options.OPTIONS.
def _options_directive():
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective

    from slimwidgets.core.options import options_rst

    class OptionsTable(SphinxDirective):
        def run(self):
            holder = nodes.container()
            self.state.nested_parse(
                StringList(options_rst().splitlines(), "slimwidgets.core.options"),
                self.content_offset,
                holder,
            )
            return holder.children

    return OptionsTable


def setup(app):
    app.add_directive("slimwidgets-options", _options_directive())
