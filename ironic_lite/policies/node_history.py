"""Policy of the history of nodes (upstream's name)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

rules = [
    rule('baremetal:node:history:get', ADMIN,
         'List the history events of a node and show one.',
         [('GET', '/nodes/{node_ident}/history'),
          ('GET', '/nodes/{node_ident}/history/{event_ident}')]),
]
