"""``GET /`` and ``GET /v1``: the version discovery documents.

Public (no credentials needed), as upstream: clients and keystoneauth
read the supported microversion range from them.
"""

from typing import Any

import webob
import webob.exc

from ironic_lite.api import microversion as mv
from ironic_lite.api import util

#: Upstream's text, which clients may show.
DESCRIPTION = (
    'Ironic is an OpenStack project which aims to provision '
    'baremetal machines.'
)


def _version(req: webob.Request, base: str) -> dict[str, Any]:
    versions = util.deps(req).versions
    return {
        'id': 'v1',
        'links': [{'href': f'{base}/v1/', 'rel': 'self'}],
        'status': 'CURRENT',
        'min_version': str(versions.minimum),
        'version': str(versions.maximum),
    }


def _resource_links(base: str, name: str) -> list[dict[str, str]]:
    return [
        {'href': f'{base}/v1/{name}/', 'rel': 'self'},
        {'href': f'{base}/{name}/', 'rel': 'bookmark'},
    ]


#: Resources ``GET /v1`` lists from a version on (upstream's
#: VERSIONED_CONTROLLERS).
VERSIONED_LINKS = {
    'portgroups': mv.PORTGROUPS,
    'volume': mv.VOLUME,
    'lookup': mv.RAMDISK,
    'heartbeat': mv.RAMDISK,
    'conductors': mv.CONDUCTOR,
    'allocations': mv.ALLOCATIONS,
    'deploy_templates': mv.DEPLOY_TEMPLATES,
    'events': mv.EVENTS,
    'shards': mv.SHARD,
    'runbooks': mv.RUNBOOKS,
    'inspection_rules': mv.INSPECTION_RULES,
    'continue_inspection': mv.CONTINUE_INSPECTION,
}


def _asked_version(req: webob.Request) -> Any:
    """The version the client asked for; the version documents accept
    any header, so a bad one is the minimum here."""
    versions = util.deps(req).versions
    try:
        return versions.requested(req.headers)
    except webob.exc.HTTPException:
        return versions.minimum


def list_versions(req: webob.Request) -> webob.Response:
    base = util.base_url(req)
    version = _version(req, base)
    return util.json_response(
        {
            'name': 'OpenStack Ironic API',
            'description': DESCRIPTION,
            'versions': [version],
            'default_version': version,
        }
    )


def show_v1(req: webob.Request) -> webob.Response:
    base = util.base_url(req)
    return util.json_response(
        {
            'id': 'v1',
            'links': [
                {'href': f'{base}/v1/', 'rel': 'self'},
                {
                    'href': 'https://docs.openstack.org/ironic/latest/'
                    'contributor/webapi.html',
                    'rel': 'describedby',
                    'type': 'text/html',
                },
            ],
            # An object, not a list: upstream's shape.
            'media_types': {
                'base': 'application/json',
                'type': 'application/vnd.openstack.ironic.v1+json',
            },
            'chassis': _resource_links(base, 'chassis'),
            'nodes': _resource_links(base, 'nodes'),
            'ports': _resource_links(base, 'ports'),
            'drivers': _resource_links(base, 'drivers'),
            'version': _version(req, base),
            **{
                name: _resource_links(base, name)
                for name, since in VERSIONED_LINKS.items()
                if _asked_version(req).at_least(since)
            },
        }
    )


def show_openapi(req: webob.Request) -> webob.Response:
    """``GET /openapi.json``: the API's OpenAPI 3.1 document (public,
    like the version documents)."""
    from ironic_lite.api import openapi

    return util.json_response(openapi.document())
