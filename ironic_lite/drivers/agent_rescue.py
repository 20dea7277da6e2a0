"""``agent``: the rescue interface whose rescue environment is the
node's ramdisk agent (upstream's ``agent`` rescue interface).

- :meth:`AgentRescue.rescue` powers the machine off, puts it on the
  rescuing network (a network interface that has one), forgets the
  agent of before and boots the machine: the node waits in ``rescue
  wait`` for its agent (:mod:`ironic_lite.conductor.rescue`).
- On the agent's first heartbeat, :meth:`AgentRescue.finalize` sends
  ``rescue.finalize_rescue`` with the hash of the rescue password (a
  bcrypt crypt(3) hash, ``hashed``: true: the password never reaches the
  agent in clear); the agent writes it for the rescue environment's
  login and stops heartbeating; the node is ``rescue``. An agent that
  never heartbeats fails the rescue at
  ``[conductor]rescue_callback_timeout``.
- :meth:`AgentRescue.unrescue` powers the machine off, leaves the
  rescuing network, boots the instance again (the boot interface's
  ``prepare_instance``, else the disk through the management interface)
  and powers it on.
"""

import bcrypt
from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import agent_token
from ironic_lite.common import states
from ironic_lite.drivers import agent_client
from ironic_lite.drivers import agent_deploy
from ironic_lite.drivers import base
from ironic_lite.drivers import standard

LOG = logging.getLogger(__name__)
PASSWORD_KEY = 'rescue_password'


def rescue_failure(reason: str) -> Exception:
    return exception.InstanceRescueFailure(reason=reason)


class AgentRescue(standard.RescueInterface):
    """Rescue through the ramdisk agent (see the module docstring)."""

    def rescue(self, task: base.TaskLike) -> str | None:
        agent_deploy.set_power(task, states.POWER_OFF, rescue_failure)
        agent_deploy.call_network(
            task, 'remove_tenant_networks', 'add_rescuing_network'
        )
        agent_token.wipe_token_and_url(task.node.driver_internal_info)
        agent_deploy.boot(task, rescue_failure)
        LOG.info(
            'Node %s: booted for rescue; waiting for its agent',
            task.node.uuid,
        )
        return states.RESCUEWAIT

    def finalize(self, task: base.TaskLike) -> None:
        """Hand the agent the password's hash (see the module docstring).

        :raises InstanceRescueFailure: no password, or the agent refused.
        """
        node = task.node
        password = (getattr(node, 'instance_info', None) or {}).get(
            PASSWORD_KEY
        )
        if not password:
            raise rescue_failure(f'node {node.uuid} has no rescue_password')
        hashed = bcrypt.hashpw(str(password).encode(), bcrypt.gensalt())
        answer = agent_client.AgentClient(
            task, self.conf.agent.command_timeout
        ).command(
            'rescue.finalize_rescue',
            {'rescue_password': hashed.decode(), 'hashed': True},
            wait=True,
        )
        if answer.get('command_status') != 'SUCCEEDED':
            raise rescue_failure(
                f'the agent of node {node.uuid} could not finalize the '
                f'rescue: {agent_client.command_error(answer)}'
            )
        # The agent is done: the rescue environment has the machine.
        agent_token.wipe_token_and_url(node.driver_internal_info)
        agent_deploy.call_network(
            task, 'remove_rescuing_network', 'configure_tenant_networks'
        )
        LOG.info('Node %s: the agent finalized the rescue', node.uuid)

    def unrescue(self, task: base.TaskLike) -> None:
        agent_deploy.set_power(task, states.POWER_OFF, rescue_failure)
        agent_deploy.call_network(
            task, 'remove_rescuing_network', 'configure_tenant_networks'
        )
        agent_token.wipe_token_and_url(task.node.driver_internal_info)
        boot = agent_deploy.interface_of(task, 'boot')
        if isinstance(boot, standard.BootInterface):
            boot.prepare_instance(task)
        agent_deploy.set_power(task, states.POWER_ON, rescue_failure)
