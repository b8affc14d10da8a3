"""Sphinx configuration of the kmeviz documentation (``python docs/build.py``)."""

import kmeviz  # the one version source

project = "kmeviz"
author = "the kmeviz developers"
copyright = "2026, the kmeviz developers"  # noqa: A001 - Sphinx's name
release = kmeviz.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]

# The course notebooks are rendered from the outputs of their one execution (the notebook
# tests save them; build.py executes only what is missing): never executed here.
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False,
                           "undoc-members": False}
autodoc_typehints = "none"
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_ivar = True  # dataclass fields: documented once, not also as attributes
templates_path = ["_templates"]

exclude_patterns = ["_build", "_executed", "**/.ipynb_checkpoints", "results/*.py"]
html_theme = "pydata_sphinx_theme"
html_title = "kmeviz"
html_theme_options = {"show_toc_level": 2, "navigation_with_keys": False}
html_static_path: list = []
