"""A node row as a task holds it: attribute access, changes tracked.

The JSON columns (``driver_internal_info``, ``clean_step``,
``properties`` ...) are plain dicts that may be changed in place;
:meth:`TaskNode.changes` compares with the row as last read or saved.
"""

import copy
import datetime
from typing import Any

from ironic_lite.db.models import Node

COLUMNS = frozenset(Node.__table__.columns.keys())


class TaskNode:
    """A node row with attribute access; remembers what was saved."""

    id: int
    uuid: str
    name: str | None
    driver: str
    power_state: str | None
    target_power_state: str | None
    provision_state: str
    target_provision_state: str | None
    provision_updated_at: datetime.datetime | None
    last_error: str | None
    maintenance: bool
    maintenance_reason: str | None
    fault: str | None
    automated_clean: bool | None
    reservation: str | None
    instance_uuid: str | None
    properties: dict[str, Any]
    driver_info: dict[str, Any]
    driver_internal_info: dict[str, Any]
    instance_info: dict[str, Any]
    clean_step: dict[str, Any]

    def __init__(self, row: dict[str, Any]) -> None:
        self._reset(row)

    def _reset(self, row: dict[str, Any]) -> None:
        object.__setattr__(self, '_saved', copy.deepcopy(row))
        for key in COLUMNS:
            object.__setattr__(self, key, copy.deepcopy(row.get(key)))
        for key in ('properties', 'driver_info', 'driver_internal_info',
                    'instance_info', 'clean_step'):
            if getattr(self, key) is None:
                object.__setattr__(self, key, {})

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in COLUMNS:
            raise AttributeError(f'nodes have no field {name!r}')
        object.__setattr__(self, name, value)

    def changes(self) -> dict[str, Any]:
        """The fields changed since the row was read or saved."""
        saved: dict[str, Any] = object.__getattribute__(self, '_saved')
        return {key: getattr(self, key) for key in COLUMNS
                if getattr(self, key) != saved.get(key)}

    def as_dict(self) -> dict[str, Any]:
        return {key: copy.deepcopy(getattr(self, key)) for key in COLUMNS}
