"""Policies of host aggregates (upstream Nova's names; admin only)."""

from nova_lite.policies.base import ADMIN
from nova_lite.policies.base import rule

AGGREGATES = 'os_compute_api:os-aggregates:%s'
NEW_AGGREGATES = 'compute:aggregates:%s'
_ACTION = '/os-aggregates/{aggregate_id}/action (%s)'

rules = [
    rule(
        AGGREGATES % 'set_metadata',
        ADMIN,
        'Create or replace metadata of an aggregate.',
        [('POST', _ACTION % 'set_metadata')],
    ),
    rule(
        AGGREGATES % 'add_host',
        ADMIN,
        'Add a host to an aggregate.',
        [('POST', _ACTION % 'add_host')],
    ),
    rule(
        AGGREGATES % 'create',
        ADMIN,
        'Create an aggregate.',
        [('POST', '/os-aggregates')],
    ),
    rule(
        AGGREGATES % 'remove_host',
        ADMIN,
        'Remove a host from an aggregate.',
        [('POST', _ACTION % 'remove_host')],
    ),
    rule(
        AGGREGATES % 'update',
        ADMIN,
        'Update the name or availability zone of an aggregate.',
        [('PUT', '/os-aggregates/{aggregate_id}')],
    ),
    rule(
        AGGREGATES % 'index',
        ADMIN,
        'List all aggregates.',
        [('GET', '/os-aggregates')],
    ),
    rule(
        AGGREGATES % 'delete',
        ADMIN,
        'Delete an aggregate.',
        [('DELETE', '/os-aggregates/{aggregate_id}')],
    ),
    rule(
        AGGREGATES % 'show',
        ADMIN,
        'Show the details of an aggregate.',
        [('GET', '/os-aggregates/{aggregate_id}')],
    ),
    rule(
        NEW_AGGREGATES % 'images',
        ADMIN,
        'Request image caching for an aggregate (2.81).',
        [('POST', '/os-aggregates/{aggregate_id}/images')],
    ),
]
