"""Policy of the conductors resource (upstream's name)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

rules = [
    rule('baremetal:conductor:get', ADMIN,
         'List conductors and show one (API 1.49).',
         [('GET', '/conductors'), ('GET', '/conductors/{hostname}')]),
]
