"""``/`` (the versions) and ``/v2.0`` (the resources), as Neutron
answers them."""

import webob

from neutron_lite.api import util

#: The core resources: (singular, collection).
RESOURCES = (
    ('network', 'networks'),
    ('subnet', 'subnets'),
    ('port', 'ports'),
)


def versions(req: webob.Request) -> webob.Response:
    base = util.base_url(req)
    return util.json_response(
        {
            'versions': [
                {
                    'status': 'CURRENT',
                    'id': 'v2.0',
                    'links': [{'href': f'{base}/v2.0/', 'rel': 'self'}],
                }
            ]
        }
    )


def resources(req: webob.Request) -> webob.Response:
    base = util.base_url(req)
    return util.json_response(
        {
            'resources': [
                {
                    'links': [
                        {'href': f'{base}/v2.0/{collection}', 'rel': 'self'}
                    ],
                    'name': name,
                    'collection': collection,
                }
                for name, collection in RESOURCES
            ]
        }
    )
