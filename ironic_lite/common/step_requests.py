"""What a request for steps may hold, checked where it arrives (the
Bare Metal API) and where it runs (the conductor): the interfaces steps
belong to and the size of a step list as the conductor stores it."""

from typing import Any

import orjson

from ironic_lite import exception

#: The interfaces that may have clean steps; of two steps of the same
#: priority, that of the interface named first runs first (upstream's
#: order).
INTERFACE_ORDER = (
    'vendor',
    'power',
    'management',
    'firmware',
    'deploy',
    'bios',
    'raid',
)
#: The most bytes of JSON the step list of a cleaning may take as stored
#: in ``driver_internal_info`` (a TEXT column: 65,535 bytes on MySQL and
#: MariaDB), leaving room for the rest of the dictionary.
MAX_STORED_STEPS_BYTES = 32768

Step = dict[str, Any]


def stored_form(requested: list[Step]) -> list[Step]:
    """``requested`` steps as the conductor stores them (the largest
    form: every flag added), to size them before they are accepted."""
    return [
        {
            'interface': step.get('interface'),
            'step': step.get('step'),
            'args': step.get('args') or {},
            'abortable': False,
            'idempotent': False,
            'priority': 0,
        }
        for step in requested
    ]


def check_stored_size(steps: list[Step]) -> None:
    """Refuse a step list that would not fit the node's
    ``driver_internal_info``.

    :raises InvalidParameterValue: over :data:`MAX_STORED_STEPS_BYTES`.
    """
    size = len(orjson.dumps(steps))
    if size > MAX_STORED_STEPS_BYTES:
        raise exception.InvalidParameterValue(
            err=f'The clean steps take {size} bytes of JSON as the '
            f'conductor stores them, more than the '
            f'{MAX_STORED_STEPS_BYTES} it can keep; ask for fewer steps '
            'or smaller arguments'
        )
