"""Policy of the history of nodes (upstream's name)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

rules = [
    rule(
        'baremetal:node:history:get',
        base.SYSTEM_OR_OWNER_READER,
        'List the history events of a node and show one.',
        [
            ('GET', '/nodes/{node_ident}/history'),
            ('GET', '/nodes/{node_ident}/history/{event_ident}'),
        ],
    ),
]
