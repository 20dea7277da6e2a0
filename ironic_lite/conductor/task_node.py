"""A node row as a task holds it: attribute access, changes tracked.

The JSON columns (``driver_internal_info``, ``clean_step``,
``properties`` ...) are plain dicts that may be changed in place;
:meth:`TaskNode.changes` compares with the row as last read or saved.
:meth:`TaskNode.rebase` carries the changes over to a newer row (one a
request wrote while the task held the lock), key by key in the
dictionaries, so that a save never undoes what it did not change.
"""

import copy
import datetime
from typing import Any

from ironic_lite.db.models import NODE_COLUMNS
from ironic_lite.db.models import NODE_DICT_COLUMNS

#: Those merged key by key by :meth:`TaskNode.rebase` (a step is one
#: step: it is replaced whole).
MERGED_COLUMNS = NODE_DICT_COLUMNS - {
    'clean_step',
    'deploy_step',
    'service_step',
}


def _merge_dict(
    base: dict[str, Any], mine: dict[str, Any], theirs: dict[str, Any]
) -> dict[str, Any]:
    """``theirs`` with the keys ``mine`` set, changed or removed since
    ``base``."""
    merged = copy.deepcopy(theirs)
    for key, value in mine.items():
        if key not in base or base[key] != value:
            merged[key] = copy.deepcopy(value)
    for key in base:
        if key not in mine:
            merged.pop(key, None)
    return merged


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
    console_enabled: bool
    fault: str | None
    automated_clean: bool | None
    reservation: str | None
    instance_uuid: str | None
    properties: dict[str, Any]
    driver_info: dict[str, Any]
    driver_internal_info: dict[str, Any]
    instance_info: dict[str, Any]
    clean_step: dict[str, Any]
    service_step: dict[str, Any]
    deploy_step: dict[str, Any]
    extra: dict[str, Any]
    revision: int
    conductor_group: str
    protected: bool
    protected_reason: str | None
    retired: bool
    retired_reason: str | None
    owner: str | None
    lessee: str | None
    disable_power_off: bool
    allocation_id: int | None

    def __init__(self, row: dict[str, Any]) -> None:
        self._reset(row)

    def _reset(self, row: dict[str, Any]) -> None:
        object.__setattr__(self, '_saved', copy.deepcopy(row))
        for key in NODE_COLUMNS:
            object.__setattr__(self, key, copy.deepcopy(row.get(key)))
        for key in NODE_DICT_COLUMNS:
            if getattr(self, key) is None:
                object.__setattr__(self, key, {})

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in NODE_COLUMNS:
            raise AttributeError(f'nodes have no field {name!r}')
        object.__setattr__(self, name, value)

    def changes(self) -> dict[str, Any]:
        """The fields changed since the row was read or saved."""
        saved: dict[str, Any] = object.__getattribute__(self, '_saved')
        return {
            key: getattr(self, key)
            for key in NODE_COLUMNS
            if getattr(self, key) != saved.get(key)
        }

    def rebase(self, row: dict[str, Any]) -> None:
        """Take ``row`` (newer than the one last read or saved) as the
        base, with this node's changes applied on top: a changed column
        wins, a changed dictionary is merged key by key."""
        saved: dict[str, Any] = object.__getattribute__(self, '_saved')
        mine = {key: getattr(self, key) for key in NODE_COLUMNS}
        self._reset(row)
        for key, value in mine.items():
            before = saved.get(key)
            if value == before:
                continue
            if (
                key in MERGED_COLUMNS
                and isinstance(value, dict)
                and isinstance(row.get(key), dict)
            ):
                value = _merge_dict(before or {}, value, row[key])
            object.__setattr__(self, key, copy.deepcopy(value))

    def as_dict(self) -> dict[str, Any]:
        return {key: copy.deepcopy(getattr(self, key)) for key in NODE_COLUMNS}
