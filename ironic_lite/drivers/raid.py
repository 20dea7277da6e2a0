"""The target RAID configuration a node may ask for (API 1.12): its
JSON schema, the descriptions ``GET /v1/drivers/{driver}/raid/
logical_disk_properties`` shows, and the checks a RAID interface runs
before ``PUT /v1/nodes/{node}/states/raid`` stores a configuration.

The keys, values and descriptions are upstream Ironic's.
"""

from typing import Any

import jsonschema

from ironic_lite import exception

RAID_LEVELS = ('JBOD', '0', '1', '2', '5', '6', '1+0', '5+0', '6+0')

#: Logical disk key -> (its JSON schema, its description).
LOGICAL_DISK_PROPERTIES: dict[str, tuple[dict[str, Any], str]] = {
    'raid_level': (
        {'type': 'string', 'enum': list(RAID_LEVELS)},
        "RAID level for the logical disk. Valid values are 'JBOD', '0', "
        "'1', '2', '5', '6', '1+0', '5+0' and '6+0'. Required.",
    ),
    'size_gb': (
        {
            'anyOf': [
                {'type': 'integer', 'minimum': 0},
                {'type': 'string', 'enum': ['MAX']},
            ]
        },
        "Size in GiB (Integer) for the logical disk. Use 'MAX' as size_gb "
        'if this logical disk is supposed to use the rest of the space '
        'available. Required.',
    ),
    'volume_name': (
        {'type': 'string'},
        'Name of the volume to be created. If this is not specified, it '
        'will be auto-generated. Optional.',
    ),
    'is_root_volume': (
        {'type': 'boolean'},
        'Specifies whether this disk is a root volume. By default, this '
        'is False. Optional.',
    ),
    'share_physical_disks': (
        {'type': 'boolean'},
        'Specifies whether other logical disks can share physical disks '
        'with this logical disk. By default, this is False. Optional.',
    ),
    'disk_type': (
        {'type': 'string', 'enum': ['hdd', 'ssd']},
        "The type of disk preferred. Valid values are 'hdd' and 'ssd'. If "
        'this is not specified, disk type will not be a selection '
        'criterion for choosing backing physical disks. Optional.',
    ),
    'interface_type': (
        {'type': 'string', 'enum': ['sata', 'scsi', 'sas']},
        "The interface type of disk. Valid values are 'sata', 'scsi' and "
        "'sas'. If this is not specified, interface type will not be a "
        'selection criterion for choosing backing physical disks. '
        'Optional.',
    ),
    'number_of_physical_disks': (
        {'type': 'integer', 'minimum': 1},
        'Number of physical disks to use for this logical disk. By '
        'default, the driver uses the minimum number of disks required '
        'for that RAID level. Optional.',
    ),
    'controller': (
        {'type': 'string'},
        'Controller to use for this logical disk. If not specified, the '
        'driver will choose a suitable RAID controller on the bare metal '
        'node. Optional.',
    ),
    'physical_disks': (
        {'type': 'array', 'items': {'type': ['string', 'object']}},
        'The physical disks to use for this logical disk. If not '
        'specified, the driver will choose suitable physical disks to '
        'use. Optional.',
    ),
}

SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'logical_disks': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    name: schema
                    for name, (schema, _doc) in LOGICAL_DISK_PROPERTIES.items()
                },
                'required': ['raid_level', 'size_gb'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['logical_disks'],
    'additionalProperties': False,
}


def descriptions() -> dict[str, str]:
    return {
        name: doc for name, (_schema, doc) in LOGICAL_DISK_PROPERTIES.items()
    }


def validate(raid_config: dict[str, Any]) -> None:
    """:raises InvalidParameterValue: not a valid target RAID
    configuration (the message says where), or more than one root
    volume."""
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(SCHEMA).iter_errors(raid_config)
    )
    if error is not None:
        where = '/'.join(str(part) for part in error.absolute_path)
        raise exception.InvalidParameterValue(
            err=f'RAID config validation error: {error.message}'
            + (f' (at {where})' if where else '')
        )
    roots = [
        disk
        for disk in raid_config['logical_disks']
        if disk.get('is_root_volume')
    ]
    if len(roots) > 1:
        raise exception.InvalidParameterValue(
            err='Raid config cannot have more than one root volume. '
            f'{len(roots)} root volumes were specified'
        )
