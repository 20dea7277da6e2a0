"""Request schemas of os-keypairs, per microversion (upstream's)."""

import copy
from typing import Any

#: Upstream's key pair name (before 2.92): letters, digits, _ - and
#: spaces, not only spaces.
NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'pattern': r'^(?! *$)[_\- a-zA-Z0-9]+$'}

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
    'type': 'string', 'enum': ['ssh', 'x509']}

# 2.10: an administrator creates one for another user.
create_v210 = copy.deepcopy(create_v22)
create_v210['properties']['keypair']['properties']['user_id'] = {
    'type': 'string'}


def create_for(version: Any) -> dict[str, Any]:
    if version.at_least('2.10'):
        return create_v210
    if version.at_least('2.2'):
        return create_v22
    return create
