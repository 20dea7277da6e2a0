"""Changing a value at a path of a node, a port or the plugin data, for
the actions of inspection rules (see :mod:`.actions` for the rules).

A change is a function ``(field value, rest of the path) -> new field
value`` (:func:`setter`, :func:`extender`, :func:`deleter`); it may
change the field's dictionaries in place. :func:`change_node` and
:func:`change_port` apply one to a field and write it, or raise
:class:`~.base.RuleActionExecutionFailure` with the message prefix
they are given; the node keeps its field as it was when the write
fails, so that the flow's later saves do not carry a bad value.
"""

from collections.abc import Callable
import copy
from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.db import models
from ironic_lite.db import ports as db_ports
from ironic_lite.inspection_rules import base

LOG = logging.getLogger(__name__)

Change = Callable[[Any, list[str]], Any]

NODE_READ_ONLY = frozenset(
    {'id', 'uuid', 'reservation', 'revision', 'created_at', 'updated_at'}
)
PORT_COLUMNS = frozenset(models.Port.__table__.columns.keys())
PORT_READ_ONLY = frozenset(
    {'id', 'uuid', 'node_id', 'created_at', 'updated_at'}
)
PORT_DICT_COLUMNS = frozenset(
    {'extra', 'local_link_connection', 'internal_info'}
)
#: Errors never turned into an action failure: the node is not this
#: conductor's any more.
LOCK_ERRORS = (exception.NodeNotLocked, exception.NodeChanged)


def failure(reason: str) -> base.RuleActionExecutionFailure:
    return base.RuleActionExecutionFailure(reason=reason)


def setter(value: Any) -> Change:
    """Set ``value`` (missing dictionaries on the way are created)."""

    def change(top: Any, rest: list[str]) -> Any:
        if not rest:
            return value
        container = top
        for part in rest[:-1]:
            container = container.setdefault(part, {})
        container[rest[-1]] = value
        return top

    return change


def extender(path: str, value: Any, unique: bool) -> Change:
    """Append ``value`` to a list (created when missing inside a
    dictionary); with ``unique`` not when it is there already."""

    def change(top: Any, rest: list[str]) -> Any:
        target = top
        if rest:
            for part in rest[:-1]:
                target = target.setdefault(part, {})
            target = target.setdefault(rest[-1], [])
        if not isinstance(target, list):
            raise TypeError(
                f'Cannot extend non-list attribute {path} with value {value}'
            )
        if not unique or value not in target:
            target.append(value)
        return top if rest else target

    return change


def deleter(top: Any, rest: list[str]) -> Any:
    """Delete the key (a missing one is an error); a whole field
    becomes None."""
    if not rest:
        return None
    container = top
    for part in rest[:-1]:
        container = container[part]
    del container[rest[-1]]
    return top


def get_in(data: Any, parts: list[str]) -> Any:
    """The value at ``parts`` of nested dictionaries, None if missing."""
    for part in parts:
        try:
            data = data[part]
        except (KeyError, TypeError, IndexError):
            return None
    return data


def unset_in(data: dict[str, Any], parts: list[str]) -> bool:
    """Delete the key at ``parts``, and the dictionary holding it if it
    is left empty (upstream's); False when there is no such key."""
    parents = [data]
    for part in parts[:-1]:
        if not isinstance(parents[-1], dict) or part not in parents[-1]:
            return False
        parents.append(parents[-1][part])
    container = parents[-1]
    if not isinstance(container, dict) or parts[-1] not in container:
        return False
    del container[parts[-1]]
    if not container and len(parents) > 1:
        del parents[-2][parts[-2]]
    return True


def change_node(task: Any, path: str, change: Change, error: str) -> None:
    """Apply ``change`` at ``path`` of ``task.node`` and save it."""
    node = task.node
    field = before = None
    try:
        parts = base.split_path(path)
        field = parts[0]
        if field not in models.NODE_COLUMNS:
            raise AttributeError(f'nodes have no field {field!r}')
        if field in NODE_READ_ONLY:
            raise ValueError(f'inspection rules cannot change {field}')
        before = copy.deepcopy(getattr(node, field))
        new = change(getattr(node, field), parts[1:])
        if new is None and field in models.NODE_DICT_COLUMNS:
            new = {}
        setattr(node, field, new)
        task.save()
    except Exception as exc:
        if field in models.NODE_COLUMNS and field not in NODE_READ_ONLY:
            setattr(node, str(field), before)
        if isinstance(exc, LOCK_ERRORS):
            raise
        LOG.error(
            'Node %(node)s: %(error)s%(exc)s',
            {'node': node.uuid, 'error': error, 'exc': exc},
        )
        raise failure(f'{error}{exc}')


def find_port(task: Any, port_id: Any) -> dict[str, Any]:
    """The node's port of that uuid or MAC address (one query).

    :raises PortNotFound:
    """
    wanted = str(port_id).lower()
    for port in db_ports.list_page(
        task.context, db_ports.Filters(node_id=task.node.id)
    ):
        if wanted in (port['uuid'], (port['address'] or '').lower()):
            return port
    raise exception.PortNotFound(port=port_id)


def change_port(
    task: Any, port_id: Any, path: str, change: Change, verb: str
) -> None:
    """Apply ``change`` at ``path`` of the port and write it.

    :raises PortNotFound: no port of the node has that uuid or address.
    """
    port = find_port(task, port_id)
    try:
        parts = base.split_path(path)
        field = parts[0]
        if field not in PORT_COLUMNS:
            raise AttributeError(f'ports have no field {field!r}')
        if field in PORT_READ_ONLY:
            raise ValueError(f'inspection rules cannot change {field}')
        new = change(copy.deepcopy(port[field]), parts[1:])
        if new is None and field in PORT_DICT_COLUMNS:
            new = {}
        db_ports.update(task.context, port['uuid'], {field: new})
    except Exception as exc:
        msg = f'Failed to {verb} attribute {path} for port {port_id}: {exc}'
        LOG.error(
            'Node %(node)s: %(msg)s', {'node': task.node.uuid, 'msg': msg}
        )
        raise failure(msg)
