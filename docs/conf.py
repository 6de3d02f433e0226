"""Sphinx configuration of the predictkit documentation (``make docs``)."""

import predictkit

project = "predictkit"
author = "the predictkit developers"
copyright = "2026, the predictkit developers"
release = predictkit.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_default_options = {"members": True, "inherited-members": False}
autosummary_generate = False
suppress_warnings = ["myst.xref_missing"]
html_theme = "alabaster"
html_theme_options = {
    # Wide enough for the result tables; the text column grows with the window.
    "page_width": "1400px",
    "sidebar_width": "220px",
    "body_max_width": "none",
}
html_static_path = ["_static"]
html_css_files = ["predictkit.css"]
nitpicky = False


def _skip_metadata_requests(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated ``set_<method>_request`` methods.

    Their docstrings refer to labels of the scikit-learn documentation that
    do not exist here; they are documented by scikit-learn.
    """
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)
