"""Policy of the external events (upstream's name)."""

from ironic_lite.policies.base import ADMIN
from ironic_lite.policies.base import rule

rules = [
    rule('baremetal:events:post', ADMIN,
         'Post external (network) events.', [('POST', '/events')]),
]
