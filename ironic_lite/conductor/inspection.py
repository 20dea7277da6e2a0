"""The end of an asynchronous inspection (``inspect wait``, API 1.39):
the data a ramdisk agent sends (1.84), an abort requested through the
API (1.41) and the timeout (``[conductor]inspect_wait_timeout``). Each
runs with the node's lock; a failure takes the node to ``inspect
failed`` and its history says why, as upstream's."""

from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import agent_token
from ironic_lite.common import states
from ironic_lite.conductor import history
from ironic_lite.conductor import task_manager
from ironic_lite.db import inspection_rules as db_rules
from ironic_lite.db import node_inventory
from ironic_lite.drivers import standard
from ironic_lite.inspection_rules import engine as rules_engine

LOG = logging.getLogger(__name__)

ABORTED = 'Inspection was aborted by request.'
TIMED_OUT = 'timeout reached while inspecting the node'


def _inspect(task: task_manager.Task) -> standard.InspectInterface:
    inspect = task.interfaces['inspect']
    assert isinstance(inspect, standard.InspectInterface)
    return inspect


def abort_inspection(task: task_manager.Task) -> None:
    """Abort the inspection of a node in ``inspect wait`` (RPC thread,
    lock held).

    :raises InvalidStateRequested: the node is not in inspect wait.
    :raises UnsupportedDriverExtension: its inspect interface cannot
        abort (the node keeps waiting).
    """
    node = task.node
    states.next_state(node.provision_state, 'abort', node.uuid)
    try:
        _inspect(task).abort(task)
    except Exception as exc:
        LOG.error(
            'Node %(node)s: aborting the inspection failed: %(err)s',
            {'node': node.uuid, 'err': exc},
        )
        history.record(
            task, f'Failed to abort inspection: {exc}', history.INTROSPECTION
        )
        raise
    history.record(task, ABORTED, history.INTROSPECTION)
    agent_token.wipe_token_and_url(node.driver_internal_info)
    task.process_event('abort', last_error=ABORTED)
    LOG.info('Node %s: inspection aborted', node.uuid)


def fail_on_timeout(task: task_manager.Task) -> None:
    """The inspection waited too long: ``inspect failed`` (the
    interface is asked to stop it first; that failing changes
    nothing)."""
    node = task.node
    if node.provision_state != states.INSPECTWAIT:
        return
    try:
        _inspect(task).abort(task)
    except Exception as exc:
        LOG.debug(
            'Node %(node)s: the inspection that timed out could not '
            'be stopped: %(err)s',
            {'node': node.uuid, 'err': exc},
        )
    LOG.error('Node %(node)s: %(msg)s', {'node': node.uuid, 'msg': TIMED_OUT})
    history.record(task, TIMED_OUT, history.INTROSPECTION)
    agent_token.wipe_token_and_url(node.driver_internal_info)
    task.process_event('fail', last_error=TIMED_OUT)


def _apply_rules(
    task: task_manager.Task,
    inventory: dict[str, Any],
    plugin_data: dict[str, Any],
) -> None:
    """The inspection rules of the main phase (API 1.96: those of the
    API, then the built-in ones of ``[inspection_rules]built_in_rules``),
    before the data is stored, so that they may change it."""
    rules = db_rules.of_phase(task.context, 'main')
    rules += rules_engine.load_built_in_rules(
        task.conf.inspection_rules.built_in_rules
    )
    rules_engine.apply_rules(task, inventory, plugin_data, rules)


def continue_inspection(
    task: task_manager.Task,
    inventory: dict[str, Any],
    plugin_data: dict[str, Any],
) -> None:
    """Hand what the agent found to the inspect interface; when it is
    done with it, store it as the node's inventory (1.81) and the node
    is ``manageable``.

    :raises InvalidStateRequested: the node is not in inspect wait.
    :raises UnsupportedDriverExtension: its inspect interface takes no
        agent data (the node keeps waiting, as upstream's).
    :raises HardwareInspectionFailure: the interface failed with the
        data (the node is ``inspect failed``).
    """
    node = task.node
    if node.provision_state != states.INSPECTWAIT:
        raise exception.InvalidStateRequested(
            action='continue inspection',
            node=node.uuid,
            state=node.provision_state,
        )
    try:
        result = _inspect(task).continue_inspection(
            task, inventory, plugin_data
        )
        if result == states.INSPECTWAIT:
            LOG.debug(
                'Node %s: the inspection data is processed asynchronously',
                node.uuid,
            )
            return
        _apply_rules(task, inventory, plugin_data)
        # Logs are large and kept elsewhere, as upstream's.
        plugin_data.pop('logs', None)
        node_inventory.store(task.context, node.id, inventory, plugin_data)
    except exception.UnsupportedDriverExtension:
        LOG.error(
            'Node %s: its inspect interface does not take inspection data',
            node.uuid,
        )
        raise
    except Exception as exc:
        message = f'Failed to finish inspection: {exc}'
        LOG.exception(
            'Node %(node)s: %(msg)s', {'node': node.uuid, 'msg': message}
        )
        history.record(task, message, history.INTROSPECTION)
        agent_token.wipe_token_and_url(node.driver_internal_info)
        task.process_event('fail', last_error=message)
        raise exception.HardwareInspectionFailure(error=exc) from exc
    agent_token.wipe_token_and_url(node.driver_internal_info)
    task.process_event('done', last_error=None)
    LOG.info(
        'Node %s: inspection finished with the data of its agent', node.uuid
    )
