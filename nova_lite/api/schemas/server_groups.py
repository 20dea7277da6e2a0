"""Request schemas of os-server-groups (upstream's): one policy in a
list until 2.63 (soft policies from 2.15); ``policy`` and ``rules``
(``max_server_per_host``, anti-affinity only) from 2.64."""

import copy
from typing import Any

from nova_lite.api import microversion as mv
from nova_lite.api.schemas.aggregates import NAME

POLICIES = ['anti-affinity', 'affinity']
SOFT_POLICIES = ['soft-anti-affinity', 'soft-affinity']
_POSITIVE_INTEGER = {
    'type': ['integer', 'string'],
    'pattern': '^[0-9]*$',
    'minimum': 1,
    'maximum': 2**31 - 1,
    'minLength': 1,
}

_V21: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'server_group': {
            'type': 'object',
            'properties': {
                'name': NAME,
                'policies': {
                    'type': 'array',
                    'items': [{'type': 'string', 'enum': POLICIES}],
                    'uniqueItems': True,
                    'minItems': 1,
                    'maxItems': 1,
                    'additionalItems': False,
                },
            },
            'required': ['name', 'policies'],
            'additionalProperties': False,
        },
    },
    'required': ['server_group'],
    'additionalProperties': False,
}


def _create(version: str) -> dict[str, Any]:
    schema = copy.deepcopy(_V21)
    group = schema['properties']['server_group']
    if version == mv.SERVER_GROUP_POLICY:
        del group['properties']['policies']
        group['required'] = ['name', 'policy']
        group['properties']['policy'] = {
            'type': 'string',
            'enum': POLICIES + SOFT_POLICIES,
        }
        group['properties']['rules'] = {
            'type': 'object',
            'properties': {'max_server_per_host': _POSITIVE_INTEGER},
            'additionalProperties': False,
        }
    elif version == mv.SOFT_AFFINITY:
        group['properties']['policies']['items'][0]['enum'] = (
            POLICIES + SOFT_POLICIES
        )
    return schema


_CREATE = {
    version: _create(version)
    for version in (mv.MIN_VERSION, mv.SOFT_AFFINITY, mv.SERVER_GROUP_POLICY)
}


def create(version: Any) -> dict[str, Any]:
    """The create schema at ``version`` (built once)."""
    for since in (mv.SERVER_GROUP_POLICY, mv.SOFT_AFFINITY):
        if version.at_least(since):
            return _CREATE[since]
    return _CREATE[mv.MIN_VERSION]
