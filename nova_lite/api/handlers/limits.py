"""GET /limits: the caller's project's absolute limits and usage, as
upstream Nova shows them (no rate limits: ``"rate": []``).

``?tenant_id=`` shows another project's (admin only, as upstream).
Which limits appear depends on the microversion: from 2.36 no
nova-network ones, from 2.39 no ``maxImageMeta``, from 2.57 no
personality ones.
"""

from typing import Any

import webob

from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.db import quotas as db

POLICY = 'os_compute_api:limits'
OTHER_PROJECT_POLICY = 'os_compute_api:limits:other_project'
# resource -> its absolute limit names.
LIMIT_NAMES = {
    'ram': ['maxTotalRAMSize'],
    'instances': ['maxTotalInstances'],
    'cores': ['maxTotalCores'],
    'key_pairs': ['maxTotalKeypairs'],
    'floating_ips': ['maxTotalFloatingIps'],
    'metadata_items': ['maxServerMeta', 'maxImageMeta'],
    'injected_files': ['maxPersonality'],
    'injected_file_content_bytes': ['maxPersonalitySize'],
    'security_groups': ['maxSecurityGroups'],
    'security_group_rules': ['maxSecurityGroupRules'],
    'server_groups': ['maxServerGroups'],
    'server_group_members': ['maxServerGroupMembers'],
}
USED_NAMES = {
    'totalRAMUsed': 'ram',
    'totalCoresUsed': 'cores',
    'totalInstancesUsed': 'instances',
    'totalFloatingIpsUsed': 'floating_ips',
    'totalSecurityGroupsUsed': 'security_groups',
    'totalServerGroupsUsed': 'server_groups',
}
FILTERED_V236 = frozenset(
    ('floating_ips', 'security_groups', 'security_group_rules')
)
FILTERED_V257 = FILTERED_V236 | {
    'injected_files',
    'injected_file_content_bytes',
}


def _filtered(req: webob.Request) -> frozenset[str]:
    version = util.version(req)
    if version.at_least(mv.NO_PERSONALITY):
        return FILTERED_V257
    if version.at_least(mv.NO_NETWORK_QUOTAS):
        return FILTERED_V236
    return frozenset()


def absolute_limits(
    req: webob.Request, limits: dict[str, int], used: dict[str, int]
) -> dict[str, Any]:
    hidden = _filtered(req)
    image_meta = not util.version(req).at_least(mv.NO_IMAGE_METADATA_QUOTA)
    body: dict[str, Any] = {}
    for resource, names in LIMIT_NAMES.items():
        if resource in hidden:
            continue
        for name in names:
            if name != 'maxImageMeta' or image_meta:
                body[name] = limits[resource]
    for name, resource in USED_NAMES.items():
        if resource not in hidden:
            body[name] = used.get(resource, 0)
    return body


def show_limits(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(req, ('tenant_id',))
    util.authorize(req, POLICY, {})
    ctx = util.context(req)
    project_id = ctx.project_id
    if 'tenant_id' in req.GET:
        project_id = req.GET['tenant_id']
        util.authorize(req, OTHER_PROJECT_POLICY, {})
    limits = db.project_quotas(ctx, project_id)
    used = db.project_usage(ctx, project_id)
    return util.json_response(
        {
            'limits': {
                'rate': [],
                'absolute': absolute_limits(req, limits, used),
            }
        }
    )
