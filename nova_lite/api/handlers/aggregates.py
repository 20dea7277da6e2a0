"""os-aggregates: list (admin only).

nova_lite has no host aggregates: every compute host is in the one
availability zone ``nova``. The list is therefore always empty; it
exists because clients ask for it, e.g. ``openstack hypervisor show``
looks up the aggregates a host belongs to. Creating aggregates is not
supported (405).
"""

import webob

from nova_lite.api import util

POLICY = 'os_compute_api:os-aggregates:index'


@util.translate_errors
def list_aggregates(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY)
    return util.json_response({'aggregates': []})
