"""Policy of the conductors resource (upstream's name)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

rules = [
    rule(
        'baremetal:conductor:get',
        base.SYSTEM_READER,
        'List conductors and show one (API 1.49).',
        [('GET', '/conductors'), ('GET', '/conductors/{hostname}')],
    ),
]
