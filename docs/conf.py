# Sphinx configuration of the documentation site (docs/SITE.md). scripts/docs.sh copies docs/ into
# <build>/docs/src, writes the generated pages there (the C++ reference per header, the seeds'
# tutorials) and builds <build>/docs/html with warnings as errors; nothing is generated in the source
# tree. The tutorials in docs/tutorials/ run while the site is built (Sphinx-Gallery): every output on
# their pages is the output of that run.
import os

from sphinx_gallery.sorting import FileNameSortKey

project = "VTA"
author = "the VTA maintainers"
copyright = "2026, " + author

extensions = [
    "myst_parser",  # the guides are Markdown (docs/*.md)
    "sphinx.ext.autodoc",  # the Python reference, from the docstrings
    "sphinx.ext.napoleon",
    "sphinx_gallery.gen_gallery",  # the tutorials, executed
    "breathe",  # the C++ reference, from Doxygen's XML of the public headers
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "site/README.md", "tutorials/README.rst"]
# the guides link their sections by the heading's slug ([...](CLI.md#vta-run)); Sphinx checks each
myst_heading_anchors = 3
suppress_warnings = []

html_theme = "sphinx_rtd_theme"
html_title = "VTA"
html_static_path = []

# the Python reference documents the package the build made (scripts/docs.sh puts it on sys.path)
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_typehints = "description"

breathe_projects = {"vta": os.environ.get("VTA_DOXYGEN_XML", "doxygen/xml")}
breathe_default_project = "vta"
breathe_default_members = ("members",)

sphinx_gallery_conf = {
    "examples_dirs": ["tutorials"],
    "gallery_dirs": ["generated/tutorials"],
    # every tutorial (NN_name.py) runs: a tutorial whose run fails fails the build; vector_add.py is a
    # helper the tutorials import, not a page
    "filename_pattern": r"/\d\d_[^/]*\.py$",
    "ignore_pattern": r"(__init__|vector_add)\.py$",
    "abort_on_example_error": True,
    "download_all_examples": False,
    "plot_gallery": "True",
    "within_subsection_order": FileNameSortKey,
    "remove_config_comments": True,
    "image_scrapers": ("matplotlib",),
    "capture_repr": (),
}
