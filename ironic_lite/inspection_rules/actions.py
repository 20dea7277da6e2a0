"""The actions of inspection rules (upstream Ironic 39's).

===================== ================================================
action                arguments (formatted ones starred)
===================== ================================================
fail                  msg: fail the inspection (HardwareInspectionFailure)
log                   msg*, level='info' (debug info warning error
                      critical)
set-attribute         path, value*: set a node field
extend-attribute      path, value*, unique=False: append to a list
del-attribute         path: unset a node field
set-capability        name, value*: append ``name:value`` to
                      ``properties/capabilities``
unset-capability      name: drop every ``name:...`` capability
add-trait             name
remove-trait          name (a missing trait is only logged)
set-plugin-data       path, value*
extend-plugin-data    path, value*, unique=False
unset-plugin-data     path (a missing path is only logged)
set-port-attribute    port_id, path, value*
extend-port-attribute port_id, path, value*, unique=False
del-port-attribute    port_id, path
api-call              url*, headers=None, proxies=None, timeout=5,
                      retries=3, backoff_factor=0.3: HTTP GET
===================== ================================================

Node and port paths are ``/field/key/...`` or ``field.key...``; a
missing dictionary on the way is created by the set and extend actions;
deleting a whole field sets it to None (``{}`` for a dictionary field).
The node is saved after each action, as upstream. Fields no rule may
change: a node's ``id``, ``uuid`` (upstream refuses it too),
``reservation`` and ``revision`` (the lock), timestamps; a port's ``id``,
``uuid``, ``node_id``, timestamps. Plugin-data paths are dotted only
(``a.b``), as upstream. A port is named by uuid or MAC address (only
the node's own ports). ``api-call`` retries 429 and 5xx answers
(``retries`` times, exponential ``backoff_factor``); each try waits at
most ``timeout`` seconds.

In a ``loop`` (a list, or a dict: one item) the action runs once per
item, every argument formatted with ``{item}``. Failures raise
:class:`~.base.RuleActionExecutionFailure` with upstream's messages.
"""

from typing import Any

from oslo_log import log as logging
import requests
from requests import adapters
from urllib3.util import retry as urllib3_retry

from ironic_lite import exception
from ironic_lite.db import node_traits
from ironic_lite.inspection_rules import base
from ironic_lite.inspection_rules import paths

LOG = logging.getLogger(__name__)

Run = base.Run

LOG_LEVELS = ('debug', 'info', 'warning', 'error', 'critical')


# -- the node


def _fail(run: Run, msg: Any) -> None:
    raise exception.HardwareInspectionFailure(error=str(msg))


def _log(run: Run, msg: Any, level: Any = 'info') -> None:
    level = str(level).lower()
    if level not in LOG_LEVELS:
        levels = ', '.join(repr(name) for name in LOG_LEVELS)
        raise base.InspectionRuleExecutionFailure(
            f'Invalid log level: {level}. Choose from {{{levels}}}'
        )
    getattr(LOG, level)(
        'Node %(node)s: %(msg)s', {'node': run.task.node.uuid, 'msg': msg}
    )


def _set_attribute(run: Run, path: str, value: Any) -> None:
    paths.change_node(
        run.task,
        path,
        paths.setter(value),
        f'Failed to set attribute {path} with value {value}: ',
    )


def _extend_attribute(
    run: Run, path: str, value: Any, unique: bool = False
) -> None:
    paths.change_node(
        run.task,
        path,
        paths.extender(path, value, unique),
        f'Failed to extend attribute {path}: ',
    )


def _del_attribute(run: Run, path: str) -> None:
    paths.change_node(
        run.task,
        path,
        paths.deleter,
        f'Failed to delete attribute at {path}: ',
    )


def _set_capability(run: Run, name: Any, value: Any) -> None:
    def change(properties: dict[str, Any], rest: list[str]) -> Any:
        old = properties.get('capabilities')
        new = ':'.join([name, value])
        properties['capabilities'] = f'{old},{new}' if old else new
        return properties

    paths.change_node(
        run.task, 'properties', change, f'Failed to set capability {name}: '
    )


def _unset_capability(run: Run, name: Any) -> None:
    def change(properties: dict[str, Any], rest: list[str]) -> Any:
        old = properties.get('capabilities')
        if old:
            properties['capabilities'] = ','.join(
                cap for cap in old.split(',') if not cap.startswith(f'{name}:')
            )
        return properties

    paths.change_node(
        run.task, 'properties', change, f'Failed to unset capability {name}: '
    )


def _traits(run: Run) -> list[str]:
    node = run.task.node
    return node_traits.traits_of(run.task.context, [node.id])[node.id]


def _add_trait(run: Run, name: Any) -> None:
    node = run.task.node
    try:
        if not isinstance(name, str) or not name:
            raise ValueError('a trait is a non-empty string')
        traits = _traits(run)
        if name not in traits:
            node_traits.set_traits(
                run.task.context, node.id, node.uuid, [*traits, name]
            )
    except Exception as exc:
        raise paths.failure(f'Failed to add new trait {name}: {exc}')


def _remove_trait(run: Run, name: Any) -> None:
    node = run.task.node
    try:
        traits = _traits(run)
        if name in traits:
            node_traits.set_traits(
                run.task.context,
                node.id,
                node.uuid,
                [t for t in traits if t != name],
            )
            return
    except Exception as exc:
        raise paths.failure(f'Failed to remove trait {name}: {exc}')
    missing = exception.NodeTraitNotFound(node=node.uuid, trait=name)
    LOG.warning(
        'Failed to remove trait %(name)s: %(exc)s',
        {'name': name, 'exc': missing},
    )


# -- the plugin data (dotted paths)


def _set_plugin_data(run: Run, path: str, value: Any) -> None:
    try:
        paths.setter(value)(run.plugin_data, path.split('.'))
    except Exception as exc:
        raise paths.failure(f'Failed to set plugin data at {path}: {exc}')


def _extend_plugin_data(
    run: Run, path: str, value: Any, unique: bool = False
) -> None:
    try:
        parts = path.split('.')
        current = paths.get_in(run.plugin_data, parts) or []
        paths.setter(current)(run.plugin_data, parts)
        paths.extender(path, value, unique)(current, [])
    except Exception as exc:
        raise paths.failure(f'Failed to extend plugin data at {path}: {exc}')


def _unset_plugin_data(run: Run, path: str) -> None:
    try:
        found = paths.unset_in(run.plugin_data, path.split('.'))
    except Exception as exc:
        raise paths.failure(f'Failed to unset plugin data at {path}: {exc}')
    if not found:
        LOG.warning(
            'Node %(node)s: plugin data path %(path)s not found',
            {'node': run.task.node.uuid, 'path': path},
        )


# -- ports


def _set_port_attribute(run: Run, port_id: Any, path: str, value: Any) -> None:
    paths.change_port(run.task, port_id, path, paths.setter(value), 'set')


def _extend_port_attribute(
    run: Run, port_id: Any, path: str, value: Any, unique: bool = False
) -> None:
    paths.change_port(
        run.task, port_id, path, paths.extender(path, value, unique), 'extend'
    )


def _del_port_attribute(run: Run, port_id: Any, path: str) -> None:
    paths.change_port(run.task, port_id, path, paths.deleter, 'delete')


# -- api-call


def _api_call(
    run: Run,
    url: Any,
    headers: Any = None,
    proxies: Any = None,
    timeout: Any = 5,
    retries: Any = 3,
    backoff_factor: Any = 0.3,
) -> None:
    try:
        timeout = float(timeout)
        if timeout <= 0:
            raise ValueError('timeout must be greater than zero')
        retry = urllib3_retry.Retry(
            total=int(retries),
            backoff_factor=float(backoff_factor),
            status_forcelist=[429, 500, 502, 503, 504],
            allowed_methods=['GET'],
            raise_on_status=False,
        )
        with requests.Session() as session:
            for scheme in ('http://', 'https://'):
                session.mount(scheme, adapters.HTTPAdapter(max_retries=retry))
            response = session.get(
                url,
                timeout=timeout,
                headers=headers or None,
                proxies=proxies or None,
            )
            response.raise_for_status()
    except ValueError as exc:
        raise paths.failure(f'Invalid parameter: {exc}')
    except requests.RequestException as exc:
        msg = f'Request to {url} failed: {exc}'
        LOG.error(
            'Node %(node)s: %(msg)s', {'node': run.task.node.uuid, 'msg': msg}
        )
        raise paths.failure(msg)
    LOG.info(
        'Node %(node)s: inspection rule called %(url)s',
        {'node': run.task.node.uuid, 'url': url},
    )


_VALUE = ('value',)
#: Every action a rule may name, in upstream's order (the schema's).
ACTIONS: dict[str, base.Plugin] = {
    plugin.name: plugin
    for plugin in (
        base.Plugin('fail', _fail),
        base.Plugin('log', _log, ('msg',)),
        base.Plugin('set-attribute', _set_attribute, _VALUE),
        base.Plugin('extend-attribute', _extend_attribute, _VALUE),
        base.Plugin('del-attribute', _del_attribute),
        base.Plugin('set-capability', _set_capability, _VALUE),
        base.Plugin('unset-capability', _unset_capability),
        base.Plugin('add-trait', _add_trait),
        base.Plugin('remove-trait', _remove_trait),
        base.Plugin('set-plugin-data', _set_plugin_data, _VALUE),
        base.Plugin('extend-plugin-data', _extend_plugin_data, _VALUE),
        base.Plugin('unset-plugin-data', _unset_plugin_data),
        base.Plugin('set-port-attribute', _set_port_attribute, _VALUE),
        base.Plugin('extend-port-attribute', _extend_port_attribute, _VALUE),
        base.Plugin('del-port-attribute', _del_port_attribute),
        base.Plugin('api-call', _api_call, ('url',)),
    )
}


def get_action(op: str) -> base.Plugin:
    """:raises ValueError: an unknown action (upstream's message)."""
    try:
        return ACTIONS[op]
    except KeyError:
        raise ValueError(
            f"Unsupported action: '{op}'. Supported actions "
            f'are: {", ".join(ACTIONS)}.'
        )


def run_action(run: Run, action: dict[str, Any]) -> None:
    """Run ``action``, once per item of its loop if it has one."""
    plugin = get_action(action['op'])
    args = action.get('args', {})
    loop = action.get('loop')
    if not loop or not isinstance(loop, (list, dict)):
        plugin.call(run, args, action['op'])
        return
    for item in [loop] if isinstance(loop, dict) else loop:
        plugin.call(run, args, action['op'], (item,))
