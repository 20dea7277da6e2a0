# Sphinx configuration of the stacklite documentation.
#
# The configuration and policy reference pages read the nova_lite option
# and policy definitions through their entry points (oslo.config.opts and
# oslo.policy.policies), so build the docs with stacklite installed in the
# same environment ("tox -e docs" does that).

import datetime

project = 'stacklite'
author = 'stacklite developers'
copyright = f'{datetime.date.today().year}, {author}'

try:
    from importlib import metadata

    release = metadata.version('stacklite')
except Exception:  # not installed: the build still works
    release = ''
version = '.'.join(release.split('.')[:2])

extensions = [
    'oslo_config.sphinxext',
    'oslo_policy.sphinxext',
]

master_doc = 'index'
exclude_patterns = ['_build']
pygments_style = 'sphinx'
todo_include_todos = False

html_theme = 'alabaster'
html_title = 'stacklite documentation'
html_theme_options = {
    'description': 'nova_lite: an OpenStack-style compute control plane',
    'fixed_sidebar': True,
}
