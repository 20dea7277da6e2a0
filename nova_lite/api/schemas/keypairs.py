"""Request schemas of os-keypairs, per microversion (upstream's)."""

import copy
from typing import Any

from nova_lite.api import microversion as mv

#: Upstream's key pair name (before 2.92): letters, digits, _ - and
#: spaces, neither starting nor ending with a space (upstream's
#: ``name`` format).
NAME = {
    'type': 'string',
    'minLength': 1,
    'maxLength': 255,
    'pattern': r'^(?! )[_\- a-zA-Z0-9]+(?<! )$',
}

create: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {'name': NAME, 'public_key': {'type': 'string'}},
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['keypair'],
    'additionalProperties': False,
}

# 2.2: a type.
create_v22 = copy.deepcopy(create)
create_v22['properties']['keypair']['properties']['type'] = {
    'type': 'string',
    'enum': ['ssh', 'x509'],
}

# 2.10: an administrator creates one for another user.
create_v210 = copy.deepcopy(create_v22)
create_v210['properties']['keypair']['properties']['user_id'] = {
    'type': 'string'
}

#: 2.92: names may also hold ``@`` and ``.``.
NAME_V292 = {
    'type': 'string',
    'minLength': 1,
    'maxLength': 255,
    'pattern': r'^(?! )[_\-@. a-zA-Z0-9]+(?<! )$',
}

# 2.92: a public key is required (no key is generated any more).
create_v292 = copy.deepcopy(create_v210)
create_v292['properties']['keypair']['properties']['name'] = NAME_V292
create_v292['properties']['keypair']['required'] = ['name', 'public_key']


def create_for(version: Any) -> dict[str, Any]:
    if version.at_least(mv.NO_KEYPAIR_GENERATION):
        return create_v292
    if version.at_least(mv.KEYPAIR_USER_ID):
        return create_v210
    if version.at_least(mv.KEYPAIR_TYPE):
        return create_v22
    return create
