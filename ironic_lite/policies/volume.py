"""Policies of the volume connectors and targets (upstream's
``baremetal:volume:*`` names)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

VOLUME = 'baremetal:volume:%s'
_CONNECTORS = '/volume/connectors'
_TARGETS = '/volume/targets'
_CONNECTOR = _CONNECTORS + '/{volume_connector_id}'
_TARGET = _TARGETS + '/{volume_target_id}'
_NODE = '/nodes/{node_ident}/volume'
_LISTS = [
    ('GET', _CONNECTORS),
    ('GET', _TARGETS),
    ('GET', _NODE + '/connectors'),
    ('GET', _NODE + '/targets'),
]

#: Who sees the properties of volume targets: the system's readers and
#: any administrator (upstream's).
_TARGET_PROPERTIES_READER = base.any_of(base.SYSTEM_READER, 'role:admin')

rules = [
    rule(
        VOLUME % 'list_all',
        base.SYSTEM_READER,
        'List every volume connector and target.',
        _LISTS,
    ),
    rule(
        VOLUME % 'list',
        base.API_READER,
        "List the volume connectors and targets of the nodes of one's "
        'project (when list_all is not granted).',
        _LISTS,
    ),
    rule(
        VOLUME % 'get',
        base.SYSTEM_OR_PROJECT_READER,
        'Show the volume resources, a volume connector or target.',
        [
            ('GET', '/volume'),
            ('GET', _NODE),
            ('GET', _CONNECTOR),
            ('GET', _TARGET),
        ],
    ),
    rule(
        VOLUME % 'create',
        base.SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN,
        'Create a volume connector or target.',
        [('POST', _CONNECTORS), ('POST', _TARGETS)],
    ),
    rule(
        VOLUME % 'update',
        base.SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
        'Update a volume connector or target (JSON patch).',
        [('PATCH', _CONNECTOR), ('PATCH', _TARGET)],
    ),
    rule(
        VOLUME % 'delete',
        base.SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN,
        'Delete a volume connector or target.',
        [('DELETE', _CONNECTOR), ('DELETE', _TARGET)],
    ),
    rule(
        VOLUME % 'view_target_properties',
        _TARGET_PROPERTIES_READER,
        'See the properties of volume targets (redacted otherwise).',
        [('GET', _TARGETS), ('GET', _TARGET)],
    ),
]
