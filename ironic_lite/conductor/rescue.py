"""Rescue and unrescue (API 1.38): an ``active`` node boots its rescue
ramdisk (``rescuing`` -> ``rescue``, or ``rescue wait`` while the
interface works asynchronously) with the password the user gave, and
goes back to its instance (``unrescuing`` -> ``active``). A failure
leaves ``rescue failed`` or ``unrescue failed`` with ``last_error``;
from there either may be asked again, or the node undeployed. The rescue
password lives in ``instance_info`` (never shown) only while the node is
rescued or being rescued.

With the ``agent`` rescue interface the node waits in ``rescue wait``
for its ramdisk agent: its first heartbeat (under the node's lock,
:mod:`agent_cleaning`) finishes the rescue (:func:`finish_on_heartbeat`:
``rescue wait`` -> ``rescuing`` -> ``rescue``); an agent that does not
come within ``[conductor]rescue_callback_timeout`` fails it
(:func:`fail_on_timeout`, the machine powered off), as does an abort.
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite.common import states
from ironic_lite.conductor import flow_guard
from ironic_lite.conductor import history
from ironic_lite.conductor import task_manager
from ironic_lite.drivers import agent_deploy
from ironic_lite.drivers import agent_rescue
from ironic_lite.drivers import standard

LOG = logging.getLogger(__name__)
Task = task_manager.Task

PASSWORD_KEY = 'rescue_password'


def _rescue_interface(task: Task) -> standard.RescueInterface:
    rescue = task.interfaces['rescue']
    assert isinstance(rescue, standard.RescueInterface)
    return rescue


def validate(task: Task) -> None:
    """Before the flow starts: :raises InvalidParameterValue: (and
    subclasses: no-rescue refuses) the node cannot be rescued."""
    task.interfaces['power'].validate(task)
    _rescue_interface(task).validate(task)


def without_password(instance_info: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in instance_info.items() if k != PASSWORD_KEY}


@flow_guard.guarded('rescue')
def do_node_rescue(task: Task) -> None:
    node = task.node
    try:
        result = _rescue_interface(task).rescue(task)
    except Exception as exc:
        message = f'Failed to rescue node {node.uuid}: {exc}'
        LOG.error('%s', message)
        history.record(task, message, history.RESCUE)
        task.process_event('fail', last_error=message)
        return
    if result == states.RESCUEWAIT:
        LOG.info('Node %s: rescue goes on asynchronously', node.uuid)
        task.process_event('wait')
        return
    task.process_event('done', last_error=None)
    LOG.info('Node %s rescued', node.uuid)


@flow_guard.guarded('unrescue')
def do_node_unrescue(task: Task) -> None:
    node = task.node
    try:
        _rescue_interface(task).unrescue(task)
    except Exception as exc:
        message = f'Failed to unrescue node {node.uuid}: {exc}'
        LOG.error('%s', message)
        history.record(task, message, history.UNRESCUE)
        task.process_event('fail', last_error=message)
        return
    task.process_event(
        'done',
        last_error=None,
        instance_info=without_password(node.instance_info),
    )
    LOG.info('Node %s unrescued', node.uuid)


def fail_rescue(task: Task) -> None:
    """A conductor that took the node over: the rescue cannot be known
    to be complete."""
    message = (
        f'The conductor rescuing node {task.node.uuid} stopped '
        'during the rescue; rescue the node again or unrescue it'
    )
    history.record(task, message, history.CONDUCTOR)
    task.process_event('fail', last_error=message)


def fail_unrescue(task: Task) -> None:
    message = (
        f'The conductor unrescuing node {task.node.uuid} stopped '
        'during the unrescue; unrescue the node again'
    )
    history.record(task, message, history.CONDUCTOR)
    task.process_event('fail', last_error=message)


def finish_on_heartbeat(task: Task) -> None:
    """The agent of a node in ``rescue wait`` heartbeated: finalize."""
    node = task.node
    rescue = _rescue_interface(task)
    finalize = getattr(rescue, 'finalize', None)
    if finalize is None:
        task.save()
        return
    task.process_event('resume')
    try:
        finalize(task)
    except Exception as exc:
        message = f'Failed to rescue node {node.uuid}: {exc}'
        LOG.error('%s', message)
        history.record(task, message, history.RESCUE)
        _power_off_quietly(task)
        task.process_event('fail', last_error=message)
        return
    task.process_event('done', last_error=None)
    LOG.info('Node %s rescued', node.uuid)


def fail_on_timeout(task: Task) -> None:
    """No agent within ``[conductor]rescue_callback_timeout``."""
    message = (
        'Timeout reached while waiting for rescue ramdisk callback for '
        f'node {task.node.uuid} '
        f'({task.conf.conductor.rescue_callback_timeout} seconds, '
        '[conductor]rescue_callback_timeout)'
    )
    LOG.error('%s', message)
    history.record(task, message, history.RESCUE)
    _power_off_quietly(task)
    task.process_event('fail', last_error=message)


def _power_off_quietly(task: Task) -> None:
    """Stop the rescue ramdisk (a BMC that fails is logged: the rescue
    fails anyway)."""
    try:
        agent_deploy.set_power(
            task, states.POWER_OFF, agent_rescue.rescue_failure
        )
    except Exception as exc:
        LOG.warning(
            'Node %s: could not power off after the failed rescue: %s',
            task.node.uuid,
            exc,
        )


def abort(task: Task) -> None:
    """``abort`` of a node in ``rescue wait``: the machine powered off,
    ``rescue failed`` (as upstream)."""
    message = f'By request, the rescue of node {task.node.uuid} was aborted'
    LOG.info('%s', message)
    history.record(task, message, history.RESCUE)
    _power_off_quietly(task)
    task.process_event('abort', last_error=message)
