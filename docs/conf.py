"""Sphinx configuration of pyclmatch's API reference (build: see the README)."""
import os
import sys

sys.path.insert(0, os.path.abspath(".."))

import pyclmatch  # noqa: E402

project = "pyclmatch"
author = "pyclmatch developers"
release = version = pyclmatch.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.intersphinx",
              "sphinx.ext.extlinks"]
# :results:`name` links a folder or file of benchmarks/results/, relative to the repository
# root as seen from the README's build folder docs/_build/html
extlinks = {"results": ("../../../benchmarks/results/%s", "%s")}
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
autodoc_member_order = "bysource"
autodoc_typehints = "description"
intersphinx_mapping = {}
exclude_patterns = ["_build"]
html_theme = "alabaster"
nitpicky = False
