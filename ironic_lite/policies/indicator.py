"""Policies of the indicators of a node (upstream's names)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

_INDICATORS = '/nodes/{node_ident}/management/indicators'

rules = [
    rule('baremetal:node:get_indicator_state', ADMIN,
         'List the indicators of a node and show the state of one.',
         [('GET', _INDICATORS),
          ('GET', _INDICATORS + '/{component}/{indicator}')]),
    rule('baremetal:node:set_indicator_state', ADMIN,
         'Change the state of an indicator of a node.',
         [('PUT', _INDICATORS + '/{component}/{indicator}')]),
]
