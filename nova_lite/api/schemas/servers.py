"""Request schemas of the servers API, per microversion."""

import copy
from typing import Any

from nova_lite.api import microversion as mv

_NAME = {
    'type': 'string',
    'minLength': 1,
    'maxLength': 255,
    'pattern': r'^(?! )[^\x00-\x1f]*(?<! )$',
}
METADATA = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255}
    },
    'additionalProperties': False,
}
_NETWORKS = {
    'oneOf': [
        {'type': 'string', 'enum': ['auto', 'none']},
        {'type': 'array', 'items': {'type': 'object'}},
    ],
}
#: Trusted image certificate ids (2.63), upstream's parameter type.
TRUSTED_CERTS = {
    'type': ['array', 'null'],
    'minItems': 1,
    'maxItems': 50,
    'uniqueItems': True,
    'items': {'type': 'string', 'minLength': 1},
}
_BOOLEAN = {
    'type': ['boolean', 'string'],
    'enum': [
        True,
        'True',
        'TRUE',
        'true',
        '1',
        'ON',
        'On',
        'on',
        'YES',
        'Yes',
        'yes',
        False,
        'False',
        'FALSE',
        'false',
        '0',
        'OFF',
        'Off',
        'off',
        'NO',
        'No',
        'no',
    ],
}
_UUID = {'type': 'string', 'format': 'uuid'}
_SIZED = {'type': 'string', 'maxLength': 255}
_UUIDS = {'type': 'array', 'items': _UUID}
#: ``os:scheduler_hints`` (upstream's schema, every version): the hints
#: upstream's filters know are checked; any other is kept as given.
SCHEDULER_HINTS: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'group': {'oneOf': [_UUIDS, _UUID]},
        'different_host': {'oneOf': [_UUID, _UUIDS]},
        'same_host': {'type': ['string', 'array'], 'items': _UUID},
        'query': {'type': ['string', 'object']},
        'target_cell': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'different_cell': {
            'type': ['string', 'array'],
            'items': {'type': 'string'},
        },
        'build_near_host_ip': {
            'type': 'string',
            'oneOf': [{'format': 'ipv4'}, {'format': 'ipv6'}],
        },
        'cidr': {'type': 'string', 'pattern': '^/[0-9a-f.:]+$'},
    },
    'additionalProperties': True,
}
#: One item of ``block_device_mapping_v2`` (upstream's; nova_lite has
#: no volumes, so a mapping is validated and then refused or ignored).
BDM_V2: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'virtual_name': _SIZED,
        'volume_id': _UUID,
        'snapshot_id': _UUID,
        'volume_size': {
            'type': ['integer', 'string'],
            'pattern': '^[0-9]+$',
            'minimum': 1,
            'maximum': 2**31 - 1,
        },
        'device_name': {
            'type': 'string',
            'minLength': 1,
            'maxLength': 255,
            'pattern': '^[a-zA-Z0-9._/-]*$',
        },
        'delete_on_termination': _BOOLEAN,
        'no_device': {},
        'connection_info': {'type': 'string', 'maxLength': 16777215},
        'source_type': {
            'type': 'string',
            'enum': ['volume', 'image', 'snapshot', 'blank'],
        },
        'uuid': {
            'type': 'string',
            'minLength': 1,
            'maxLength': 255,
            'pattern': '^[a-zA-Z0-9._-]*$',
        },
        'image_id': _UUID,
        'destination_type': {'type': 'string', 'enum': ['local', 'volume']},
        'guest_format': _SIZED,
        'device_type': _SIZED,
        'disk_bus': _SIZED,
        'boot_index': {
            'type': ['integer', 'string', 'null'],
            'pattern': '^-?[0-9]+$',
            'minimum': -(2**31),
            'maximum': 2**31 - 1,
        },
        'tag': {
            'type': 'string',
            'minLength': 1,
            'maxLength': 60,
            'pattern': '^[^,/]*$',
        },
    },
    'additionalProperties': False,
}
#: 2.67: a mapping may name its volume type.
VOLUME_TYPE = {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}
#: Upstream's ``fqdn`` (host names, underscores allowed).
FQDN = {
    'type': 'string',
    'pattern': '^[a-zA-Z0-9-._]*$',
    'minLength': 1,
    'maxLength': 255,
}
#: Upstream's ``hostname`` (2.90 to 2.93): one RFC 1123 label.
HOSTNAME = {
    'type': 'string',
    'pattern': '^[a-zA-Z0-9]+[a-zA-Z0-9-]*[a-zA-Z0-9]+$',
    'minLength': 2,
    'maxLength': 63,
}
_COUNT = {
    'type': ['integer', 'string'],
    'pattern': '^[0-9]+$',
    'minLength': 1,
    'minimum': 1,
    'maximum': 2**31 - 1,
}


def add_hostname(properties: dict[str, Any], version: Any) -> None:
    """``hostname`` of create, update and rebuild: a label from 2.90,
    an FQDN (upstream's ``fqdn``, as host) from 2.94."""
    if version.at_least(mv.FQDN_HOSTNAME):
        properties['hostname'] = FQDN
    elif version.at_least(mv.SERVER_HOSTNAME):
        properties['hostname'] = HOSTNAME


def create(version: Any) -> dict[str, Any]:
    """The create schema at ``version`` (2.37 makes networks required)."""
    server: dict[str, Any] = {
        'type': 'object',
        'properties': {
            'name': _NAME,
            'imageRef': {'type': 'string', 'maxLength': 255},
            # An id compared as text: any 64-bit number, 255 characters.
            'flavorRef': {
                'type': ['string', 'integer'],
                'minLength': 1,
                'maxLength': 255,
                'maximum': 2**63 - 1,
            },
            'networks': _NETWORKS,
            'metadata': METADATA,
            'availability_zone': {'type': 'string', 'maxLength': 255},
            'key_name': {'type': 'string', 'maxLength': 255},
            'min_count': _COUNT,
            'max_count': _COUNT,
            'return_reservation_id': {'type': 'boolean'},
            'adminPass': {'type': 'string'},
            'accessIPv4': {'type': 'string', 'format': 'ipv4'},
            'accessIPv6': {'type': 'string', 'format': 'ipv6'},
            'config_drive': {'type': ['boolean', 'string']},
            'user_data': {'type': 'string'},
            'security_groups': {
                'type': 'array',
                'items': {
                    'type': 'object',
                    'properties': {'name': _NAME},
                    'additionalProperties': False,
                },
            },
            'OS-DCF:diskConfig': {
                'type': 'string',
                'enum': ['AUTO', 'MANUAL'],
            },
            'personality': {'type': 'array'},
            'block_device_mapping_v2': {
                'type': 'array',
                'items': copy.deepcopy(BDM_V2),
            },
        },
        'required': ['name', 'flavorRef'],
        'additionalProperties': False,
    }
    if version.at_least(mv.SERVER_DESCRIPTION):
        server['properties']['description'] = {
            'type': ['string', 'null'],
            'maxLength': 255,
        }
    if version.at_least(mv.NETWORKS_REQUIRED):
        server['required'].append('networks')
    if version.at_least(mv.CREATE_TAGS):
        server['properties']['tags'] = {
            'type': 'array',
            'maxItems': 50,
            'items': {
                'type': 'string',
                'pattern': '^[^,/]*$',
                'minLength': 1,
                'maxLength': 60,
            },
        }
    if version.at_least(mv.NO_PERSONALITY):
        # Personality files are gone from 2.57: an unknown property.
        del server['properties']['personality']
    if version.at_least(mv.TRUSTED_CERTS):
        server['properties']['trusted_image_certificates'] = TRUSTED_CERTS
    if version.at_least(mv.BDM_VOLUME_TYPE):
        server['properties']['block_device_mapping_v2']['items']['properties'][
            'volume_type'
        ] = VOLUME_TYPE
    if version.at_least(mv.CREATE_ON_HOST):
        server['properties']['host'] = FQDN
        server['properties']['hypervisor_hostname'] = FQDN
    add_hostname(server['properties'], version)
    return {
        'type': 'object',
        'properties': {
            'server': server,
            'os:scheduler_hints': SCHEDULER_HINTS,
            'OS-SCH-HNT:scheduler_hints': SCHEDULER_HINTS,
        },
        'required': ['server'],
        'additionalProperties': False,
    }


def update(version: Any) -> dict[str, Any]:
    """``PUT /servers/{id}``: the name, access IPs and, from 2.19, the
    description (upstream's)."""
    server: dict[str, Any] = {
        'type': 'object',
        'properties': {
            'name': _NAME,
            'accessIPv4': {'type': ['string', 'null'], 'format': 'ipv4'},
            'accessIPv6': {'type': ['string', 'null'], 'format': 'ipv6'},
            'OS-DCF:diskConfig': {
                'type': 'string',
                'enum': ['AUTO', 'MANUAL'],
            },
        },
        'additionalProperties': False,
    }
    if version.at_least(mv.SERVER_DESCRIPTION):
        server['properties']['description'] = {
            'type': ['string', 'null'],
            'maxLength': 255,
        }
    add_hostname(server['properties'], version)
    return {
        'type': 'object',
        'properties': {'server': server},
        'required': ['server'],
        'additionalProperties': False,
    }
