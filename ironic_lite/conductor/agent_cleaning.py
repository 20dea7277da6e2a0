"""Cleaning driven by the heartbeats of a node's ramdisk agent (the
``agent`` deploy interface, :mod:`ironic_lite.drivers.agent`), as
upstream's ``HeartbeatMixin._heartbeat_clean_wait`` does it.

A heartbeat checked by :mod:`ramdisk` comes here under the node's lock
(a node locked by someone else skips the heartbeat: the next one comes
soon). It records ``agent_url``, ``agent_version``,
``agent_last_heartbeat`` and the agent's ``agent_status_message`` (how
far its running command is) in ``driver_internal_info`` and, for a node in
``clean wait``, restarts the callback timeout (``provision_updated_at``:
an agent that stops heartbeating fails the node
``[conductor]clean_callback_timeout`` after its last heartbeat), then:

- no step running (the agent just booted): the agent's clean steps are
  cached, the cleaning's steps computed (automated: merged with the
  other interfaces' by priority, :func:`steps.automated_steps`; manual:
  those requested) and run from the first on a worker (``resume``);
- an agent step running: the agent is asked about its command
  (``GET /v1/commands/{id}``): RUNNING waits for the next heartbeat,
  SUCCEEDED goes on with the next step (:func:`clean_wait.
  continue_cleaning`), FAILED fails the node with the step and the
  agent's error in ``last_error``.

A heartbeat in ``wait call-back`` (a deployment: :mod:`ironic_lite.
drivers.agent_deploy`) restarts the deploy callback timeout and polls
the waiting deploy step at once (:func:`deploy_wait.poll_async_step`).
One in ``rescue wait`` (the ``agent`` rescue interface) finishes the
rescue (:func:`rescue.finish_on_heartbeat`).

A step starts only on a worker that moved the node out of ``clean
wait`` under its lock, and its command id is recorded in the same save
that puts the node back in ``clean wait``; a late or repeated heartbeat
finds the node in ``cleaning`` (locked, skipped) or waiting for the
next step's command: a step never runs twice.
"""

from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import agent_token
from ironic_lite.common import states
from ironic_lite.common import step_requests
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import clean_wait
from ironic_lite.conductor import cleaning
from ironic_lite.conductor import deploy_wait
from ironic_lite.conductor import rescue
from ironic_lite.conductor import steps as conductor_steps
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import task_node
from ironic_lite.conductor import workers
from ironic_lite.conductor.clean_state import STEPS_KEY
from ironic_lite.conductor.clean_state import fail_cleaning
from ironic_lite.conductor.clean_state import step_name
from ironic_lite.drivers import agent
from ironic_lite.drivers import agent_client
from ironic_lite.drivers import agent_rescue
from lite_common import db as lite_db
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

Task = task_manager.Task
#: Where the agent's last status message is kept, and its longest form.
STATUS_MESSAGE_KEY = 'agent_status_message'
STATUS_MESSAGE_LENGTH = 255


def drives_agent(task: Task) -> bool:
    """Whether the node's heartbeats come here: its deploy interface
    cleans through the agent, or its rescue interface rescues through
    it."""
    return isinstance(
        task.interfaces.get('deploy'), agent.AgentCleaning
    ) or isinstance(task.interfaces.get('rescue'), agent_rescue.AgentRescue)


def on_heartbeat(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    holder: ConductorIdentity,
    pool: workers.WorkerPool,
    node_uuid: str,
    callback_url: str,
    agent_version: str,
    token: str | None,
    status_message: str | None = None,
) -> None:
    """Process one heartbeat under the node lock (see module doc).

    :raises InvalidParameterValue: the token is no longer the node's.
    """
    try:
        with task_manager.acquire(
            context, conf, node_uuid, holder, 'agent heartbeat'
        ) as task:
            if not agent_token.is_valid(task.node.driver_internal_info, token):
                raise exception.InvalidParameterValue(
                    err='Invalid or missing agent token received.'
                )
            heartbeat(task, pool, callback_url, agent_version, status_message)
    except exception.NodeLocked:
        LOG.info(
            "Node %s is locked; its agent's heartbeat is skipped "
            '(the next one is processed)',
            node_uuid,
        )


def heartbeat(
    task: Task,
    pool: workers.WorkerPool,
    callback_url: str,
    agent_version: str,
    status_message: str | None = None,
) -> None:
    node = task.node
    info = node.driver_internal_info
    info[agent_token.URL_KEY] = callback_url
    info['agent_version'] = agent_version
    _record_status(node, status_message)
    info[clean_wait.LAST_HEARTBEAT_KEY] = lite_db.utcnow().isoformat()
    if node.provision_state == states.DEPLOYWAIT:
        _deploy_heartbeat(task, pool)
        return
    if node.provision_state == states.RESCUEWAIT:
        rescue.finish_on_heartbeat(task)
        return
    if node.provision_state != states.CLEANWAIT:
        LOG.debug(
            'Node %s: agent heartbeat in state %s; nothing to do',
            node.uuid,
            node.provision_state,
        )
        task.save()
        return
    node.provision_updated_at = lite_db.utcnow()
    step = node.clean_step
    if not step:
        _start(task, pool)
    elif step.get('interface') == 'deploy' and agent.COMMAND_KEY in info:
        _check_command(task, pool)
    else:
        task.save()  # another interface's step: the periodic polls it


def _record_status(node: task_node.TaskNode, message: str | None) -> None:
    """The agent's word on its running command (how much of an image
    is written, of a disk erased) in ``driver_internal_info``
    (``agent_status_message``, gone once the agent says nothing), logged
    when it changes."""
    info = node.driver_internal_info
    message = (message or '').strip()[:STATUS_MESSAGE_LENGTH] or None
    if message is None:
        info.pop(STATUS_MESSAGE_KEY, None)
        return
    if info.get(STATUS_MESSAGE_KEY) != message:
        LOG.info('Node %s: the agent reports: %s', node.uuid, message)
    info[STATUS_MESSAGE_KEY] = message


def _deploy_heartbeat(task: Task, pool: workers.WorkerPool) -> None:
    """A heartbeat in ``wait call-back``: the callback timeout starts
    again and the waiting deploy step is polled at once (the agent
    booted, or its command may have ended)."""
    node = task.node
    node.provision_updated_at = lite_db.utcnow()
    try:
        deploy_wait.poll_async_step(task, pool)
    except exception.NoFreeConductorWorker:
        LOG.warning(
            'Node %s: no free worker to go on with the deployment; the '
            'next heartbeat or poll retries',
            node.uuid,
        )
        task.save()


def _deploy(task: Task) -> agent.AgentCleaning:
    deploy = task.interfaces['deploy']
    assert isinstance(deploy, agent.AgentCleaning)
    return deploy


def _start(task: Task, pool: workers.WorkerPool) -> None:
    """The agent booted: cache its steps and start the cleaning."""
    node = task.node
    try:
        task.reserve_worker(pool)
    except exception.NoFreeConductorWorker:
        LOG.warning(
            'Node %s: no free worker to start cleaning; the next '
            'heartbeat retries',
            node.uuid,
        )
        task.save()
        return
    try:
        _deploy(task).refresh_clean_steps(task)
        if node.target_provision_state == states.MANAGEABLE:
            clean_steps = list(node.driver_internal_info.get(STEPS_KEY) or [])
        else:
            clean_steps = conductor_steps.automated_steps(
                task, task.interfaces, task.conf
            )
        step_requests.check_stored_size(clean_steps)
    except Exception as exc:
        LOG.exception(
            'Node %s: starting cleaning on the agent failed', node.uuid
        )
        fail_cleaning(
            task,
            f'Node {node.uuid} failed to start the first cleaning step: {exc}',
        )
        return
    LOG.info('Node %s: its agent heartbeated; cleaning starts', node.uuid)
    cleaning.record_steps(task, clean_steps)
    task.spawn_after(pool, cleaning.do_next_clean_step, 0)
    task.process_event('resume')


def _check_command(task: Task, pool: workers.WorkerPool) -> None:
    """Ask the agent how the running step's command went."""
    node = task.node
    step = node.clean_step
    try:
        command = _deploy(task).command_status(task) or {}
    except (exception.AgentConnectionFailed, exception.AgentAPIError) as exc:
        LOG.warning(
            'Node %(node)s: cannot get the status of clean step '
            '%(step)s from the agent: %(err)s',
            {'node': node.uuid, 'step': step_name(step), 'err': exc},
        )
        task.save()
        return
    status = command.get('command_status')
    if status == 'RUNNING':
        LOG.debug(
            'Node %s: clean step %s still runs on the agent: %s',
            node.uuid,
            step_name(step),
            command.get('command_result'),
        )
        task.save()
        return
    done_step = (command.get('command_result') or {}).get('clean_step')
    if status == 'SUCCEEDED' and (done_step or {}).get('step') == step.get(
        'step'
    ):
        LOG.info(
            'Node %s: the agent finished clean step %s',
            node.uuid,
            step_name(step),
        )
        node.driver_internal_info.pop(agent.COMMAND_KEY, None)
        clean_wait.continue_cleaning(task, pool)
        return
    error = (
        agent_client.command_error(command)
        if status == 'FAILED'
        else f'unexpected command status {status!r}: {command}'
    )
    fail_cleaning(
        task,
        f'Clean step {step_name(step)} failed on node '
        f'{node.uuid}: the agent reported: {error}',
    )
