"""Request schemas of server actions (as upstream's, per microversion)."""

import copy
from typing import Any

from nova_lite.api import microversion as mv
from nova_lite.api.schemas import servers
from nova_lite.api.schemas.services import BOOLEAN

_HOST = {
    'type': 'string',
    'minLength': 1,
    'maxLength': 255,
    'pattern': '^[a-zA-Z0-9-._]*$',
}
_PASSWORD = {'type': 'string'}

# 2.1 - 2.13: onSharedStorage is required.
evacuate: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'evacuate': {
            'type': 'object',
            'properties': {
                'host': _HOST,
                'onSharedStorage': BOOLEAN,
                'adminPass': _PASSWORD,
            },
            'required': ['onSharedStorage'],
            'additionalProperties': False,
        },
    },
    'required': ['evacuate'],
    'additionalProperties': False,
}

# 2.14 - 2.28: onSharedStorage is gone (the compute finds out).
evacuate_v214 = copy.deepcopy(evacuate)
del evacuate_v214['properties']['evacuate']['properties']['onSharedStorage']
del evacuate_v214['properties']['evacuate']['required']

# 2.29 - 2.67: force (bypass the scheduler's checks of the target host).
evacuate_v229 = copy.deepcopy(evacuate_v214)
evacuate_v229['properties']['evacuate']['properties']['force'] = {
    'type': 'boolean'
}

# 2.68: force is gone again (an unknown property: 400).
evacuate_v268 = copy.deepcopy(evacuate_v214)

# 2.1 - 2.55: {"migrate": null}.
# Before 2.56 upstream does not check the body: any value (``{}``,
# null, even a host, which is then ignored) is a migrate.
migrate: dict[str, Any] = {
    'type': 'object',
    'properties': {'migrate': {}},
    'required': ['migrate'],
    'additionalProperties': False,
}

# 2.56: an optional target host.
migrate_v256: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'migrate': {
            'type': ['object', 'null'],
            'properties': {
                'host': {
                    'type': ['string', 'null'],
                    'minLength': 1,
                    'maxLength': 255,
                    'pattern': '^[a-zA-Z0-9-._]*$',
                }
            },
            'additionalProperties': False,
        },
    },
    'required': ['migrate'],
    'additionalProperties': False,
}

resize: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'resize': {
            'type': 'object',
            'properties': {
                # An id compared as text: any 64-bit number, 255 characters.
                'flavorRef': {
                    'type': ['string', 'integer'],
                    'minLength': 1,
                    'maxLength': 255,
                    'maximum': 2**63 - 1,
                },
                'OS-DCF:diskConfig': {
                    'type': 'string',
                    'enum': ['AUTO', 'MANUAL'],
                },
            },
            'required': ['flavorRef'],
            'additionalProperties': False,
        },
    },
    'required': ['resize'],
    'additionalProperties': False,
}


def _any_value(name: str) -> dict[str, Any]:
    """``{"<name>": <anything>}``: upstream takes any value (null in
    its examples, ``{}`` from many clients)."""
    return {
        'type': 'object',
        'properties': {name: {}},
        'required': [name],
        'additionalProperties': False,
    }


confirm_resize = _any_value('confirmResize')
revert_resize = _any_value('revertResize')

reset_state: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'os-resetState': {
            'type': 'object',
            'properties': {
                'state': {'type': 'string', 'enum': ['active', 'error']}
            },
            'required': ['state'],
            'additionalProperties': False,
        },
    },
    'required': ['os-resetState'],
    'additionalProperties': False,
}


stop = _any_value('os-stop')
start = _any_value('os-start')
lock = _any_value('lock')
# 2.73: an optional reason (null or {} are still a plain lock).
lock_v273: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'lock': {
            'type': ['object', 'null'],
            'properties': {
                'locked_reason': {
                    'type': 'string',
                    'minLength': 1,
                    'maxLength': 255,
                }
            },
            'additionalProperties': False,
        },
    },
    'required': ['lock'],
    'additionalProperties': False,
}
unlock = _any_value('unlock')
pause = _any_value('pause')
unpause = _any_value('unpause')
suspend = _any_value('suspend')
resume = _any_value('resume')
# Before 2.77 upstream does not check the value of any of the three.
shelve = _any_value('shelve')
shelve_offload = _any_value('shelveOffload')
unshelve = _any_value('unshelve')
# 2.77: null, or an object with an availability_zone (not {}).
unshelve_v277: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'unshelve': {
            'type': ['object', 'null'],
            'properties': {
                'availability_zone': {
                    'type': 'string',
                    'minLength': 1,
                    'maxLength': 255,
                    'pattern': r'^(?! )[^\x00-\x1f]*(?<! )$',
                },
            },
            'required': ['availability_zone'],
            'additionalProperties': False,
        },
    },
    'required': ['unshelve'],
    'additionalProperties': False,
}
# 2.91: null, or an object with a host (a string) and/or an
# availability_zone (a string, or null to unpin); upstream's schema
# (which, like this one, also takes {}).
unshelve_v291: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'unshelve': {
            'type': ['object', 'null'],
            'properties': {
                'availability_zone': {'type': ['string', 'null']},
                'host': {'type': 'string'},
            },
            'additionalProperties': False,
        },
    },
    'required': ['unshelve'],
    'additionalProperties': False,
}

reboot: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'reboot': {
            'type': 'object',
            'properties': {
                'type': {
                    'type': 'string',
                    'enum': ['HARD', 'Hard', 'hard', 'SOFT', 'Soft', 'soft'],
                },
            },
            'required': ['type'],
            'additionalProperties': False,
        },
    },
    'required': ['reboot'],
    'additionalProperties': False,
}


_REBUILD_METADATA = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255}
    },
    'additionalProperties': False,
}


def rebuild(version: Any) -> dict[str, Any]:
    """The rebuild schema at ``version`` (2.19: description; 2.54:
    key_name; 2.57: user_data, no personality; 2.63: trusted image
    certificates; 2.90: hostname, an FQDN from 2.94)."""
    props: dict[str, Any] = {
        'name': {
            'type': 'string',
            'minLength': 1,
            'maxLength': 255,
            'pattern': r'^(?! )[^\x00-\x1f]*(?<! )$',
        },
        'imageRef': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'adminPass': _PASSWORD,
        'metadata': _REBUILD_METADATA,
        'preserve_ephemeral': BOOLEAN,
        'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
        'accessIPv4': {'type': 'string', 'format': 'ipv4'},
        'accessIPv6': {'type': 'string', 'format': 'ipv6'},
        'personality': {'type': 'array'},
    }
    if version.at_least(mv.SERVER_DESCRIPTION):
        props['description'] = {'type': ['string', 'null'], 'maxLength': 255}
    if version.at_least(mv.REBUILD_KEY_NAME):
        props['key_name'] = {
            'type': ['string', 'null'],
            'minLength': 1,
            'maxLength': 255,
        }
    if version.at_least(mv.NO_PERSONALITY):
        del props['personality']
        props['user_data'] = {'type': ['string', 'null'], 'maxLength': 65535}
    if version.at_least(mv.TRUSTED_CERTS):
        props['trusted_image_certificates'] = servers.TRUSTED_CERTS
    servers.add_hostname(props, version)
    return {
        'type': 'object',
        'properties': {
            'rebuild': {
                'type': 'object',
                'properties': props,
                'required': ['imageRef'],
                'additionalProperties': False,
            }
        },
        'required': ['rebuild'],
        'additionalProperties': False,
    }


create_image: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'createImage': {
            'type': 'object',
            'properties': {
                'name': {
                    'type': 'string',
                    'minLength': 1,
                    'maxLength': 255,
                    'pattern': r'^(?! )[^\x00-\x1f]*(?<! )$',
                },
                'metadata': _REBUILD_METADATA,
            },
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['createImage'],
    'additionalProperties': False,
}
create_backup: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'createBackup': {
            'type': 'object',
            'properties': {
                'name': create_image['properties']['createImage'][
                    'properties'
                ]['name'],
                'backup_type': {'type': 'string'},
                # An integer, or a string of digits (upstream's
                # non_negative_integer).
                'rotation': {
                    'type': ['integer', 'string'],
                    'pattern': '^[0-9]+$',
                    'maxLength': 10,
                    'minimum': 0,
                    'maximum': 2**31 - 1,
                },
                'metadata': _REBUILD_METADATA,
            },
            'required': ['name', 'backup_type', 'rotation'],
            'additionalProperties': False,
        },
    },
    'required': ['createBackup'],
    'additionalProperties': False,
}
# Deferred delete (upstream accepts any value, as for confirmResize).
restore = _any_value('restore')
force_delete = _any_value('forceDelete')
