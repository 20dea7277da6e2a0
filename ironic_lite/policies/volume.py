"""Policies of the volume connectors and targets (upstream's
``baremetal:volume:*`` names)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

VOLUME = 'baremetal:volume:%s'
_CONNECTORS = '/volume/connectors'
_TARGETS = '/volume/targets'
_CONNECTOR = _CONNECTORS + '/{volume_connector_id}'
_TARGET = _TARGETS + '/{volume_target_id}'
_NODE = '/nodes/{node_ident}/volume'
_LISTS = [('GET', _CONNECTORS), ('GET', _TARGETS),
          ('GET', _NODE + '/connectors'), ('GET', _NODE + '/targets')]

rules = [
    rule(VOLUME % 'list_all', ADMIN,
         'List every volume connector and target.', _LISTS),
    rule(VOLUME % 'list', ADMIN,
         'List the volume connectors and targets of the nodes of one\'s '
         'project (when list_all is not granted).', _LISTS),
    rule(VOLUME % 'get', ADMIN,
         'Show the volume resources, a volume connector or target.',
         [('GET', '/volume'), ('GET', _NODE), ('GET', _CONNECTOR),
          ('GET', _TARGET)]),
    rule(VOLUME % 'create', ADMIN,
         'Create a volume connector or target.',
         [('POST', _CONNECTORS), ('POST', _TARGETS)]),
    rule(VOLUME % 'update', ADMIN,
         'Update a volume connector or target (JSON patch).',
         [('PATCH', _CONNECTOR), ('PATCH', _TARGET)]),
    rule(VOLUME % 'delete', ADMIN,
         'Delete a volume connector or target.',
         [('DELETE', _CONNECTOR), ('DELETE', _TARGET)]),
    rule(VOLUME % 'view_target_properties', ADMIN,
         'See the properties of volume targets (redacted otherwise).',
         [('GET', _TARGETS), ('GET', _TARGET)]),
]
