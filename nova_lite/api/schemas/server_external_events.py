"""Request schemas of POST /os-server-external-events (upstream's, per
microversion)."""

import copy
from typing import Any

from lite_common.wsgi.microversion import APIVersion
from nova_lite.api import microversion as mv

EVENT_STATUSES = ['failed', 'completed', 'in-progress']

create: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'events': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'name': {
                        'type': 'string',
                        'enum': [
                            'network-changed',
                            'network-vif-plugged',
                            'network-vif-unplugged',
                            'network-vif-deleted',
                        ],
                    },
                    'server_uuid': {'type': 'string', 'format': 'uuid'},
                    'status': {'type': 'string', 'enum': EVENT_STATUSES},
                    'tag': {'type': 'string', 'maxLength': 255},
                },
                'required': ['name', 'server_uuid'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['events'],
    'additionalProperties': False,
}

# 2.51: volume-extended (its tag, the volume id, is required).
create_v251 = copy.deepcopy(create)
create_v251['properties']['events']['items']['properties']['name'][
    'enum'
].append('volume-extended')
# 2.76: power-update (its tag, POWER_ON or POWER_OFF, is required).
create_v276 = copy.deepcopy(create_v251)
create_v276['properties']['events']['items']['properties']['name'][
    'enum'
].append('power-update')
# 2.82: accelerator-request-bound (its tag, the ARQ uuid, is required).
create_v282 = copy.deepcopy(create_v276)
create_v282['properties']['events']['items']['properties']['name'][
    'enum'
].append('accelerator-request-bound')
# volume-reimaged (2.93) would be one more deepcopy.


def create_for(version: APIVersion) -> dict[str, Any]:
    if version.at_least(mv.ACCELERATOR_EVENT):
        return create_v282
    if version.at_least(mv.POWER_UPDATE_EVENT):
        return create_v276
    return (
        create_v251 if version.at_least(mv.VOLUME_EXTENDED_EVENT) else create
    )
