"""``GET /v1/nodes/{node_ident}/cleaning/steps``: an extension, served
at the maximum version.

The clean steps a node offers, from the conductor that owns it:
``automated`` in the order automated cleaning runs them (priority
overrides applied, priority 0 left out), ``manual`` every step that
manual cleaning accepts. Below the maximum version it does not exist.
"""

from typing import Any

import webob
import webob.exc

from ironic_lite.api import util
from ironic_lite.api.handlers import node_access


def list_cleaning_steps(req: webob.Request) -> webob.Response:
    """``GET /v1/nodes/{node_ident}/cleaning/steps`` (an extension)."""
    # Not an upstream version: served at the advertised maximum only.
    if util.version(req).below(str(util.deps(req).versions.maximum)):
        raise webob.exc.HTTPNotFound(
            explanation=f'The resource {req.path_info} could not be found.'
        )
    row = node_access.authorized_node(req, 'baremetal:node:get_cleaning_steps')
    steps = util.deps(req).conductor.get_clean_steps(util.context(req), row)
    return util.json_response(
        {
            'automated': [_step(s) for s in steps.get('automated', [])],
            'manual': [_step(s) for s in steps.get('manual', [])],
        }
    )


def _step(step: dict[str, Any]) -> dict[str, Any]:
    return {
        'step': step.get('step'),
        'priority': step.get('priority', 0),
        'interface': step.get('interface'),
        'abortable': bool(step.get('abortable', False)),
        'argsinfo': step.get('argsinfo'),
    }
