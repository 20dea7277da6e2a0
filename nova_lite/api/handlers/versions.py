"""Version discovery documents: ``GET /``, ``GET /v2.1`` and ``GET /v2``.

As upstream, ``GET /`` lists v2.0 (DEPRECATED, no microversions) beside
v2.1. Its link, ``/v2/``, answers the v2.0 version document; the legacy
v2.0 resources themselves are not served (use ``/v2.1``).
"""

from typing import Any

import webob

from nova_lite.api import microversion
from nova_lite.api import util

UPDATED = '2013-07-23T11:33:21Z'
V20_UPDATED = '2025-07-04T12:00:00Z'


def _v20(req: webob.Request) -> dict[str, Any]:
    return {
        'id': 'v2.0',
        'status': 'DEPRECATED',
        'version': '',
        'min_version': '',
        'updated': V20_UPDATED,
        'links': [{'rel': 'self', 'href': f'{util.base_url(req)}/v2/'}],
    }


def _v21(req: webob.Request) -> dict[str, Any]:
    base = util.base_url(req)
    return {
        'id': 'v2.1',
        'status': 'CURRENT',
        'version': microversion.MAX_VERSION,
        'min_version': microversion.MIN_VERSION,
        'updated': UPDATED,
        'links': [{'rel': 'self', 'href': f'{base}/v2.1/'}],
    }


def list_versions(req: webob.Request) -> webob.Response:
    return util.json_response({'versions': [_v20(req), _v21(req)]})


def _document(version: dict[str, Any], media: str) -> webob.Response:
    version['links'].append(
        {
            'rel': 'describedby',
            'type': 'text/html',
            'href': 'http://docs.openstack.org/',
        }
    )
    version['media-types'] = [
        {
            'base': 'application/json',
            'type': f'application/vnd.openstack.compute+json;version={media}',
        }
    ]
    return util.json_response({'version': version})


def show_version(req: webob.Request) -> webob.Response:
    return _document(_v21(req), '2.1')


def show_v20_version(req: webob.Request) -> webob.Response:
    """``GET /v2``: the legacy v2.0 version document."""
    return _document(_v20(req), '2')


def identity_version(req: webob.Request) -> webob.Response:
    """An identity v3 version document and nothing else.

    There is no identity service here (authentication is http_basic or
    keystone's own). Clients such as ``openstack flavor create`` insist
    on discovering identity v3 before they start; clouds.yaml points
    them here so that they can. Projects can be looked up (see
    :mod:`nova_lite.api.handlers.projects`); every other identity path
    is a 404.
    """
    base = util.base_url(req)
    return util.json_response(
        {
            'version': {
                'id': 'v3.14',
                'status': 'stable',
                'updated': '2020-04-07T00:00:00Z',
                'links': [{'rel': 'self', 'href': f'{base}/identity/v3/'}],
                'media-types': [
                    {
                        'base': 'application/json',
                        'type': 'application/vnd.openstack.identity-v3+json',
                    }
                ],
            }
        }
    )


def show_openapi(req: webob.Request) -> webob.Response:
    """``GET /openapi.json``: the API's OpenAPI 3.1 document (public,
    like the version documents)."""
    from nova_lite.api import openapi

    return util.json_response(openapi.document())
