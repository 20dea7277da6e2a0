"""Request schemas of ``POST /servers/{id}/remote-consoles`` (upstream's):
``mks``/``webmks`` from 2.8, ``spice-direct`` from 2.99."""

import copy
from typing import Any

from lite_common.wsgi.microversion import APIVersion
from nova_lite.api import microversion as mv

_V26: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'remote_console': {
            'type': 'object',
            'properties': {
                # rdp stays listed (as upstream) and is refused by the
                # handler: its driver is gone.
                'protocol': {
                    'type': 'string',
                    'enum': ['vnc', 'spice', 'serial', 'rdp'],
                },
                'type': {
                    'type': 'string',
                    'enum': [
                        'novnc',
                        'xvpvnc',
                        'spice-html5',
                        'serial',
                        'rdp-html5',
                    ],
                },
            },
            'required': ['protocol', 'type'],
            'additionalProperties': False,
        },
    },
    'required': ['remote_console'],
    'additionalProperties': False,
}
_V28 = copy.deepcopy(_V26)
_V28['properties']['remote_console']['properties']['protocol']['enum'].append(
    'mks'
)
_V28['properties']['remote_console']['properties']['type']['enum'].append(
    'webmks'
)
_V299 = copy.deepcopy(_V28)
_V299['properties']['remote_console']['properties']['type']['enum'].append(
    'spice-direct'
)


def create(version: APIVersion) -> dict[str, Any]:
    if version.at_least(mv.SPICE_DIRECT):
        return _V299
    if version.at_least(mv.MKS_CONSOLE):
        return _V28
    return _V26


#: ``os-getConsoleOutput`` (upstream's): ``length`` the lines wanted
#: from the end, an integer or its string (-1 or null: all).
CONSOLE_OUTPUT: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'os-getConsoleOutput': {
            'type': 'object',
            'properties': {
                # (the maximum: what any schema's integer may be here)
                'length': {
                    'type': ['integer', 'string', 'null'],
                    'pattern': '^-?[0-9]+$',
                    'minimum': -1,
                    'maximum': 2**31 - 1,
                },
            },
            'additionalProperties': False,
        },
    },
    'required': ['os-getConsoleOutput'],
    'additionalProperties': False,
}


def legacy_action(action: str, types: list[str]) -> dict[str, Any]:
    """A console action of before 2.6 (``os-getVNCConsole``,
    ``os-getSPICEConsole``, ``os-getSerialConsole``): its ``type``
    (upstream's values, old ones included)."""
    return {
        'type': 'object',
        'properties': {
            action: {
                'type': 'object',
                'properties': {'type': {'type': 'string', 'enum': types}},
                'required': ['type'],
                'additionalProperties': False,
            },
        },
        'required': [action],
        'additionalProperties': False,
    }
