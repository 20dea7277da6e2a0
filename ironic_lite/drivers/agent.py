"""``agent``: the deploy interface whose clean steps run on the node's
ramdisk agent (upstream's ``agent`` / ``direct`` deploy, cleaning part).

- :meth:`AgentCleaning.prepare_cleaning` boots the machine (power on
  through the power interface; rebooted when on) and answers ``clean
  wait``: the conductor waits for the agent's first heartbeat
  (:mod:`ironic_lite.conductor.agent_cleaning`).
- On it, :meth:`AgentCleaning.refresh_clean_steps` caches the agent's
  ``get_clean_steps`` in ``driver_internal_info['agent_cached_clean_
  steps']`` (``{'deploy': [...]}``, as upstream) with its
  ``hardware_manager_version``; :meth:`AgentCleaning.get_clean_steps`
  lists them (priorities overridden by ``[deploy]erase_devices_
  priority`` and ``erase_devices_metadata_priority``), so that they are
  ordered with the BMC's steps as any deploy step.
- :meth:`AgentCleaning.execute_clean_step` sends ``clean.execute_clean_
  step`` and records the command's id in
  ``driver_internal_info['agent_command_id']``; the node waits in ``clean
  wait`` and each heartbeat asks the agent about that command
  (:meth:`AgentCleaning.command_status`).
- :meth:`AgentCleaning.tear_down_cleaning` powers the machine off at the
  end of cleaning (which forgets the agent, its token and its steps).

Deploying is :mod:`ironic_lite.drivers.agent_deploy`'s: the agent
writes the image and the config drive, then the machine boots from its
disk (doc/source/admin/deploy.rst). The ``ramdisk`` deploy interface
(:mod:`ironic_lite.drivers.ramdisk`) cleans the same way and deploys
nothing to the disk.
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import agent_token
from ironic_lite.common import states
from ironic_lite.drivers import agent_client
from ironic_lite.drivers import agent_deploy
from ironic_lite.drivers import base
from ironic_lite.drivers import deploy_images

LOG = logging.getLogger(__name__)

CACHED_STEPS_KEY = 'agent_cached_clean_steps'
VERSION_KEY = 'hardware_manager_version'
COMMAND_KEY = agent_deploy.COMMAND_KEY
#: The step flags kept from the agent's step (the others are the
#: conductor's: args, idempotent ...).
_STEP_KEYS = ('step', 'priority', 'interface', 'abortable', 'reboot_requested')


def _cleaning_failure(task: base.TaskLike) -> agent_deploy.Failure:
    return lambda reason: exception.NodeCleaningFailure(
        node=task.node.uuid, reason=reason
    )


class AgentCleaning(base.DeployInterface):
    """Clean steps from the ramdisk agent (see the module docstring): the
    deploy interfaces whose machines boot the agent to be cleaned
    (``agent``, ``ramdisk``)."""

    def client(self, task: base.TaskLike) -> agent_client.AgentClient:
        return agent_client.AgentClient(task, self.conf.agent.command_timeout)

    # -- booting the agent

    def prepare_cleaning(self, task: base.TaskLike) -> str | None:
        """Boot the machine (its agent then looks it up and
        heartbeats)."""
        agent_deploy.boot(task, _cleaning_failure(task))
        LOG.info(
            'Node %s: booted for cleaning; waiting for its agent',
            task.node.uuid,
        )
        return states.CLEANWAIT

    def tear_down_cleaning(self, task: base.TaskLike) -> None:
        """Power the machine off: its agent is forgotten."""
        agent_deploy.set_power(task, states.POWER_OFF, _cleaning_failure(task))
        agent_token.wipe_on_power_off(task.node.driver_internal_info)

    def abort_clean_step(self, task: base.TaskLike) -> None:
        """The agent cannot stop a command (upstream's neither): the
        machine is powered off, as upstream's abort does."""
        task.node.driver_internal_info.pop(COMMAND_KEY, None)
        self.tear_down_cleaning(task)

    # -- steps

    def _overrides(self) -> dict[str, int | None]:
        deploy = self.conf.deploy
        return {
            'erase_devices': deploy.erase_devices_priority,
            'erase_devices_metadata': deploy.erase_devices_metadata_priority,
        }

    def get_clean_steps(self, task: base.TaskLike) -> list[dict[str, Any]]:
        cached = task.node.driver_internal_info.get(CACHED_STEPS_KEY) or {}
        overrides = self._overrides()
        steps = super().get_clean_steps(task)
        for agent_step in cached.get(self.interface_type, []):
            step = {key: agent_step.get(key) for key in _STEP_KEYS}
            step.update(
                interface=self.interface_type,
                idempotent=False,
                argsinfo=agent_step.get('argsinfo'),
                abortable=bool(agent_step.get('abortable')),
            )
            if overrides.get(step['step']) is not None:
                step['priority'] = overrides[step['step']]
            steps.append(step)
        return steps

    def refresh_clean_steps(self, task: base.TaskLike) -> None:
        """Cache the agent's clean steps (the caller saves).

        :raises NodeCleaningFailure: an invalid answer.
        """
        node = task.node
        answer = self.client(task).get_clean_steps()
        result = answer.get('command_result') or {}
        missing = {'clean_steps', VERSION_KEY} - set(result)
        if answer.get('command_status') != 'SUCCEEDED' or missing:
            raise exception.NodeCleaningFailure(
                node=node.uuid,
                reason="the agent's get_clean_steps "
                f'answered an invalid result (missing {sorted(missing)}): '
                f'{answer}',
            )
        steps: dict[str, list[dict[str, Any]]] = {}
        for step_list in result['clean_steps'].values():
            for step in step_list:
                if not {'interface', 'step', 'priority'} <= set(step):
                    raise exception.NodeCleaningFailure(
                        node=node.uuid,
                        reason=f'the agent listed an '
                        f'invalid clean step: {step}',
                    )
                steps.setdefault(step['interface'], []).append(step)
        node.driver_internal_info[VERSION_KEY] = result[VERSION_KEY]
        node.driver_internal_info[CACHED_STEPS_KEY] = steps

    def _is_agent_step(
        self, task: base.TaskLike, step: dict[str, Any]
    ) -> bool:
        cached = task.node.driver_internal_info.get(CACHED_STEPS_KEY) or {}
        return any(
            s.get('step') == step.get('step')
            for s in cached.get(self.interface_type, [])
        )

    def execute_clean_step(
        self, task: base.TaskLike, step: dict[str, Any]
    ) -> str | None:
        if not self._is_agent_step(task, step):
            return super().execute_clean_step(task, step)
        info = task.node.driver_internal_info
        agent_step = {key: step.get(key) for key in _STEP_KEYS}
        agent_step['args'] = step.get('args') or {}
        answer = self.client(task).execute_clean_step(
            agent_step, info.get(VERSION_KEY)
        )
        if not answer.get('command_status') or not answer.get('id'):
            raise exception.NodeCleaningFailure(
                node=task.node.uuid,
                reason=f'the agent returned a bad command result: {answer}',
            )
        info[COMMAND_KEY] = answer['id']
        return states.CLEANWAIT

    def command_status(self, task: base.TaskLike) -> dict[str, Any] | None:
        """The agent's result of the running step's command (None: no
        command recorded)."""
        command_id = task.node.driver_internal_info.get(COMMAND_KEY)
        if not command_id:
            return None
        return self.client(task).get_command(str(command_id))


class AgentDeploy(agent_deploy.AgentDeploySteps, AgentCleaning):
    """Clean steps from the ramdisk agent, deploy steps through it (see
    the module docstring)."""

    def tear_down(self, task: base.TaskLike) -> None:
        """The instance goes with the cleaning that follows (the agent
        erases the disk); nothing of a deployment is kept."""
        deploy_images.release(task.node.uuid)
        info = task.node.driver_internal_info
        for key in (
            COMMAND_KEY,
            agent_deploy.IMAGE_TYPE_KEY,
            agent_deploy.ROOT_UUID_KEY,
            agent_deploy.EFI_UUID_KEY,
        ):
            info.pop(key, None)
