"""Policy of the external events (upstream's name)."""

from ironic_lite.policies import base
from ironic_lite.policies.base import rule

rules = [
    rule(
        'baremetal:events:post',
        base.SYSTEM_ADMIN,
        'Post external (network) events.',
        [('POST', '/events')],
        scope_types=base.SYSTEM_SCOPE,
    ),
]
