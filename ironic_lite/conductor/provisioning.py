"""The flows besides cleaning: verify, deploy, tear down, power, resume.

Each ``do_*`` function runs on a worker thread with the node lock held
(:meth:`task_manager.Task.spawn_after` hands the task over); the RPC
manager has already validated the request and processed the event that
moved the node into the transient state (``verifying``, ``deploying``,
``deleting``). A flow ends the node in a stable or failure state and
returns; the lock is released by the task.

:func:`resume_node` continues a flow whose conductor went away (it died,
stopped, restarted under the same name, or lost the node's lock): the
takeover periodic task of the conductor that now owns the node calls
it, see :mod:`periodics`. A cleaning resumes with the step it was at:

- a step that had not started yet (the conductor stopped between two
  steps) simply runs;
- a step that was interrupted runs again only when it is idempotent
  (``@clean_step(..., idempotent=True)``) and was started fewer than
  ``[conductor]clean_step_max_attempts`` times; otherwise the node goes
  to ``clean failed``, in maintenance, as upstream Ironic does with
  every interrupted cleaning;
- a node in maintenance or with an abort requested is not resumed: it
  goes to ``clean failed`` too.

Every flow is :func:`flow_guard.guarded`: an unexpected error fails the
node instead of leaving it to be resumed again and again.
"""

from typing import Any
from typing import cast

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import agent_token
from ironic_lite.common import states
from ironic_lite.conductor import clean_state
from ironic_lite.conductor import cleaning
from ironic_lite.conductor import deploy_steps
from ironic_lite.conductor import flow_guard
from ironic_lite.conductor import history
from ironic_lite.conductor import node_cache
from ironic_lite.conductor import rescue
from ironic_lite.conductor import servicing
from ironic_lite.conductor import task_manager
from ironic_lite.conductor.clean_state import ATTEMPT_KEY
from ironic_lite.conductor.clean_state import INDEX_KEY
from ironic_lite.conductor.clean_state import STEPS_KEY
from ironic_lite.db import allocations as db_allocations
from ironic_lite.drivers import base
from lite_common import db as lite_db

LOG = logging.getLogger(__name__)

Task = task_manager.Task

#: Transient provision states a node only has while a conductor works on
#: it (so, with the node lock held). A node found in one of them without
#: a lock lost its conductor: :func:`resume_node` continues it.
RESUMABLE_STATES = frozenset(
    {
        states.VERIFYING,
        states.CLEANING,
        states.DEPLOYING,
        states.DELETING,
        states.INSPECTING,
        states.ADOPTING,
        states.RESCUING,
        states.UNRESCUING,
        states.SERVICING,
    }
)


def _power(task: Task) -> base.PowerInterface:
    return cast(base.PowerInterface, task.interfaces['power'])


def _deploy(task: Task) -> base.DeployInterface:
    return cast(base.DeployInterface, task.interfaces['deploy'])


# -- verify (enroll -> manageable)


@flow_guard.guarded('verify')
def do_node_verify(task: Task) -> None:
    """Check that the conductor can talk to the node's power interface
    and read its power state (``verifying`` -> ``manageable``, or back to
    ``enroll`` with ``last_error`` on failure)."""
    node = task.node
    power = _power(task)
    try:
        power.validate(task)
        power_state = power.get_power_state(task)
    except Exception as exc:
        message = (
            f'Failed to verify node {node.uuid}: could not get its '
            f'power state: {exc}'
        )
        LOG.error('%s', message)
        history.record(task, message, history.VERIFYING)
        task.process_event('fail', last_error=message)
        return
    node_cache.update_cache(task)
    task.process_event('done', power_state=power_state, last_error=None)
    LOG.info(
        'Node %(node)s verified; power state %(power)s',
        {'node': node.uuid, 'power': power_state},
    )


# -- inspect (manageable -> inspecting -> manageable)


@flow_guard.guarded('inspect')
def do_node_inspect(task: Task) -> None:
    """Inspect the node: with its inspect interface when it has one
    (``inspect_hardware``), which may update its properties; the node
    records when inspection started and finished (``inspecting`` ->
    ``manageable``, or ``inspect failed`` with ``last_error``). An
    interface that goes on asynchronously leaves the node in ``inspect
    wait`` (:mod:`ironic_lite.conductor.inspection` ends that)."""
    node = task.node
    task.update(
        inspection_started_at=lite_db.utcnow(), inspection_finished_at=None
    )
    inspector = getattr(
        task.interfaces.get('inspect'), 'inspect_hardware', None
    )
    try:
        result = inspector(task) if inspector is not None else None
        if result not in (None, states.MANAGEABLE, states.INSPECTWAIT):
            raise exception.HardwareInspectionFailure(
                error=f'During inspection, driver returned unexpected '
                f'state {result}'
            )
    except Exception as exc:
        message = f'Failed to inspect node {node.uuid}: {exc}'
        LOG.error('%s', message)
        history.record(task, message, history.INTROSPECTION)
        task.process_event('fail', last_error=message)
        return
    if result == states.INSPECTWAIT:
        task.process_event('wait', last_error=None)
        LOG.info('Node %s: inspection goes on asynchronously', node.uuid)
        return
    task.process_event(
        'done', inspection_finished_at=lite_db.utcnow(), last_error=None
    )
    LOG.info('Node %s inspected', node.uuid)


def _fail_inspect(task: Task) -> None:
    task.process_event(
        'fail',
        last_error=f'The conductor inspecting node '
        f'{task.node.uuid} stopped during the inspection; inspect it '
        'again',
    )


# -- adopt (manageable or adopt failed -> adopting -> active)


@flow_guard.guarded('adopt')
def do_node_adopt(task: Task) -> None:
    """Take over the instance a node already runs: the interfaces
    validate the node and the deploy interface takes it over (nothing is
    written to the machine), then the node is ``active``; on failure
    ``adopt failed`` with ``last_error``, as upstream."""
    node = task.node
    try:
        validate_for_deploy(task)
        _deploy(task).take_over(task)
    except Exception as exc:
        message = f'Error while attempting to adopt node {node.uuid}: {exc}.'
        LOG.error('%s', message)
        history.record(task, message, history.ADOPTING)
        task.process_event('fail', last_error=message)
        return
    task.process_event('done', last_error=None)
    LOG.info('Node %s adopted', node.uuid)


def _fail_adopt(task: Task) -> None:
    message = (
        f'The conductor adopting node {task.node.uuid} stopped '
        'during the adoption; adopt the node again'
    )
    history.record(task, message, history.CONDUCTOR)
    task.process_event('fail', last_error=message)


# -- deploy (available -> active) and tear down (active -> cleaning)

#: The interfaces a deployment uses, checked before it starts (a node
#: may do without the others: no-bios, no-console ...).
DEPLOY_INTERFACES = (
    'power',
    'management',
    'deploy',
    'boot',
    'network',
    'storage',
)


def validate_for_deploy(task: Task) -> None:
    """:raises InvalidParameterValue: (and subclasses) an interface a
    deployment uses lacks what it needs."""
    for kind in DEPLOY_INTERFACES:
        task.interfaces[kind].validate(task)
    _deploy(task).validate_instance(task)


@flow_guard.guarded('deploy')
def do_node_deploy(task: Task) -> None:
    """Run the deploy steps (:mod:`deploy_steps`: the core step
    ``deploy.deploy`` through the deploy interface, and those of deploy
    templates and of the request), then power the node on.

    A step answering ``wait call-back`` leaves the node waiting, unlocked
    (:mod:`deploy_wait`: polled, aborted, timed out); the deployment goes
    on with the next step once it finished.
    """
    node = task.node
    try:
        validate_for_deploy(task)
        steps = deploy_steps.all_steps(task)
    except Exception as exc:
        fail_deploy(task, f'Failed to deploy node {node.uuid}: {exc}')
        return
    node.driver_internal_info[deploy_steps.STEPS_KEY] = steps
    do_next_deploy_step(task, 0)


@flow_guard.guarded('deploy')
def do_next_deploy_step(task: Task, start: int) -> None:
    """Run the deploy steps from index ``start`` on (worker, lock held),
    each shown in ``deploy_step``; power the node on after the last."""
    node = task.node
    steps = node.driver_internal_info.get(deploy_steps.STEPS_KEY) or []
    try:
        for index in range(start, len(steps)):
            step = steps[index]
            name = deploy_steps.step_id(step)
            node.deploy_step = step
            node.driver_internal_info[deploy_steps.INDEX_KEY] = index
            task.save()
            LOG.info(
                'Node %(node)s: running deploy step %(step)s (%(n)d '
                'of %(count)d)',
                {
                    'node': node.uuid,
                    'step': name,
                    'n': index + 1,
                    'count': len(steps),
                },
            )
            result = task.interfaces[step['interface']].execute_deploy_step(
                task, step
            )
            if result == states.DEPLOYWAIT:
                LOG.info(
                    'Node %s: deploy step %s goes on asynchronously',
                    node.uuid,
                    name,
                )
                task.process_event('wait')
                return
            if result is not None:
                raise exception.InstanceDeployFailure(
                    reason=f'deploy step {name} returned {result!r}'
                )
        power = _power(task)
        if power.get_power_state(task) != states.POWER_ON:
            # (a deploy interface's boot_instance step has done it)
            power.set_power_state(task, states.POWER_ON)
        node.power_state = power.get_power_state(task)
    except Exception as exc:
        if not isinstance(exc, exception.IronicLiteException):
            # (an expected failure says it all in last_error)
            LOG.exception('Node %s: deployment failed', node.uuid)
        fail_deploy(task, f'Failed to deploy node {node.uuid}: {exc}')
        return
    forget_deploy_steps(task)
    agent_token.wipe_token_and_url(node.driver_internal_info)
    task.process_event('done', last_error=None)
    LOG.info('Node %s deployed', node.uuid)


def fail_deploy(task: Task, message: str, event: str = 'fail') -> None:
    """End a deployment in ``deploy failed`` with ``message``."""
    node = task.node
    LOG.error('%s', message)
    history.record(task, message, history.DEPLOYING)
    forget_deploy_steps(task)
    agent_token.wipe_token_and_url(node.driver_internal_info)
    task.process_event(event, last_error=message, target_power_state=None)


def forget_deploy_steps(task: Task) -> None:
    """Nothing of a deployment's steps is left on the node."""
    task.node.deploy_step = {}
    for key in (
        deploy_steps.STEPS_KEY,
        deploy_steps.INDEX_KEY,
        deploy_steps.USER_STEPS_KEY,
    ):
        task.node.driver_internal_info.pop(key, None)


@flow_guard.guarded('tear down')
def do_node_tear_down(task: Task) -> None:
    """Remove the instance, power off, forget the instance and clean
    (automated cleaning, target ``available``).

    A failing tear down leaves the node in ``error``; ``deleted`` may
    be requested again from there.
    """
    node = task.node
    try:
        _deploy(task).tear_down(task)
        if node.disable_power_off:
            LOG.info(
                'Node %s stays powered on: disable_power_off is set', node.uuid
            )
        else:
            _power(task).set_power_state(task, states.POWER_OFF)
            agent_token.wipe_on_power_off(node.driver_internal_info)
    except Exception as exc:
        message = f'Failed to tear down node {node.uuid}: {exc}'
        LOG.exception('%s', message)
        history.record(task, message, history.UNPROVISION)
        task.process_event('fail', last_error=message)
        return
    LOG.info('Node %s torn down; automated cleaning follows', node.uuid)
    allocation_id = node.allocation_id
    task.process_event(
        'clean',
        target_state=states.AVAILABLE,
        instance_uuid=None,
        instance_info={},
        allocation_id=None,
        last_error=None,
    )
    if allocation_id is not None:
        # The instance is gone: so is the allocation that reserved the
        # node for it (as upstream's).
        db_allocations.destroy(task.context, allocation_id, release_node=False)
    cleaning.do_node_clean(task)


# -- power


@flow_guard.guarded('power change')
def do_node_power_action(task: Task, target: str) -> None:
    """Switch the power of a node to ``target`` (power on, power off,
    rebooting, soft power off or soft rebooting); ``target_power_state``
    is already set by the manager.

    A failure keeps the power state the interface reports and records
    the reason in ``last_error``.
    """
    node = task.node
    power = _power(task)
    try:
        if target == states.REBOOT:
            power.reboot(task)
        elif target == states.SOFT_REBOOT or (
            power.get_power_state(task) != states.POWER_TARGET_STATES[target]
        ):
            power.set_power_state(task, target)
        new_state = power.get_power_state(task)
    except Exception as exc:
        message = (
            f'Failed to change power state of node {node.uuid} to '
            f'"{target}": {exc}'
        )
        LOG.error('%s', message)
        history.record(task, message)
        current: str | None
        try:
            current = power.get_power_state(task)
        except Exception:
            current = node.power_state
        task.update(
            power_state=current, target_power_state=None, last_error=message
        )
        return
    if new_state == states.POWER_OFF:
        agent_token.wipe_on_power_off(node.driver_internal_info)
    task.update(
        power_state=new_state, target_power_state=None, last_error=None
    )
    LOG.info(
        'Node %(node)s is now in power state "%(power)s"',
        {'node': node.uuid, 'power': new_state},
    )


# -- resuming a flow whose conductor went away


def _refuse_resumption(task: Task, step: dict[str, Any]) -> str | None:
    """Why the cleaning of a node found without its conductor must not
    go on at ``step`` (None: it may)."""
    node = task.node
    info = node.driver_internal_info
    name = clean_state.step_name(step)
    if info.get(clean_state.ABORT_AFTER_KEY):
        return 'an abort was requested'
    if node.maintenance:
        return 'the node is in maintenance'
    if not node.clean_step:
        return None  # between two steps: the step did not start
    attempts = int(info.get(ATTEMPT_KEY) or 1)
    if not step.get('idempotent'):
        return (
            f'clean step {name} was interrupted and is not '
            'idempotent: it is not run a second time'
        )
    limit = task.conf.conductor.clean_step_max_attempts
    if attempts >= limit:
        return (
            f'clean step {name} was interrupted {attempts} time(s), '
            f'the most [conductor]clean_step_max_attempts allows'
        )
    return None


def _resume_cleaning(task: Task) -> None:
    node = task.node
    info = node.driver_internal_info
    clean_steps = info.get(STEPS_KEY)
    if clean_steps is None:
        if node.target_provision_state == states.AVAILABLE:
            LOG.info('Node %s: restarting automated cleaning', node.uuid)
            cleaning.do_node_clean(task)
            return
        # The requested manual steps lived only in the lost request.
        clean_state.fail_cleaning(
            task,
            f'The conductor cleaning node {node.uuid} stopped '
            'before it recorded the requested clean steps; request the '
            'manual cleaning again',
        )
        return
    index = int(info.get(INDEX_KEY) or 0)
    step = clean_steps[index] if index < len(clean_steps) else {}
    reason = _refuse_resumption(task, step)
    if reason is not None:
        aborted = bool(info.get(clean_state.ABORT_AFTER_KEY))
        clean_state.fail_cleaning(
            task,
            f'Cleaning of node {node.uuid} lost its conductor and '
            f'is not resumed: {reason}',
            event='abort' if aborted else 'fail',
        )
        return
    LOG.info(
        'Node %(node)s: resuming cleaning at step %(step)s (index '
        '%(index)d)%(again)s',
        {
            'node': node.uuid,
            'index': index,
            'step': clean_state.step_name(step),
            'again': ', which runs again: it is idempotent'
            if node.clean_step
            else '',
        },
    )
    cleaning.do_next_clean_step(task, index)


def _fail_deploy(task: Task) -> None:
    message = (
        f'The conductor deploying node {task.node.uuid} stopped '
        'during the deployment; deploy the node again or undeploy '
        'it'
    )
    history.record(task, message, history.CONDUCTOR)
    task.process_event('fail', last_error=message)


_RESUME = {
    states.VERIFYING: do_node_verify,
    states.CLEANING: _resume_cleaning,
    states.DEPLOYING: _fail_deploy,
    states.DELETING: do_node_tear_down,
    states.INSPECTING: _fail_inspect,
    states.ADOPTING: _fail_adopt,
    states.RESCUING: rescue.fail_rescue,
    states.UNRESCUING: rescue.fail_unrescue,
    states.SERVICING: servicing.resume,
}


@flow_guard.guarded('takeover')
def resume_node(task: Task) -> None:
    """Continue the flow of a node left in a transient state by a
    conductor that went away (worker, lock held).

    ``verifying`` and ``deleting`` run their flow again, ``cleaning``
    goes on as the module docstring says (automated cleaning without
    recorded steps restarts), ``deploying`` fails: the deployment
    cannot be known to be complete.
    """
    flow = _RESUME.get(task.node.provision_state)
    if flow is None:
        LOG.debug(
            'Node %(node)s: nothing to resume in state %(state)s',
            {'node': task.node.uuid, 'state': task.node.provision_state},
        )
        return
    LOG.info(
        'Node %(node)s: taking over the %(state)s flow',
        {'node': task.node.uuid, 'state': task.node.provision_state},
    )
    flow(task)
