"""Policies of key pairs (upstream Nova's names and defaults: a user's
own key pairs, or any for an administrator)."""

from nova_lite.policies.base import ADMIN
from nova_lite.policies.base import rule

KEYPAIRS = 'os_compute_api:os-keypairs:%s'
OWNER_OR_ADMIN = f'{ADMIN} or user_id:%(user_id)s'

rules = [
    rule(
        KEYPAIRS % 'index',
        OWNER_OR_ADMIN,
        'List key pairs.',
        [('GET', '/os-keypairs')],
    ),
    rule(
        KEYPAIRS % 'create',
        OWNER_OR_ADMIN,
        'Create (import or generate) a key pair.',
        [('POST', '/os-keypairs')],
    ),
    rule(
        KEYPAIRS % 'show',
        OWNER_OR_ADMIN,
        'Show a key pair.',
        [('GET', '/os-keypairs/{keypair_name}')],
    ),
    rule(
        KEYPAIRS % 'delete',
        OWNER_OR_ADMIN,
        'Delete a key pair.',
        [('DELETE', '/os-keypairs/{keypair_name}')],
    ),
]
