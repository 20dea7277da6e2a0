# Sphinx configuration of the stacklite release notes (reno).

project = 'stacklite Release Notes'
author = 'stacklite developers'
copyright = 'stacklite developers'

extensions = ['reno.sphinxext']

master_doc = 'index'
exclude_patterns = []
templates_path = ['_templates']
html_static_path = ['_static']
html_theme = 'alabaster'

# Release notes are built from the git history, not from a version.
version = ''
release = ''
