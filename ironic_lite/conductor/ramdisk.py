"""What a ramdisk agent on a node asks of its conductor (API 1.22:
``/v1/lookup`` and ``/v1/heartbeat/{node}``), and the agent token that
proves a heartbeat comes from the agent the node booted.

The token (``driver_internal_info['agent_secret_token']``) is made once,
at the first lookup from API 1.62, under the node's lock; every later
lookup gets a masked value, so a second machine claiming the node learns
nothing. A heartbeat without the token is refused. The token and the
agent's URL are forgotten when the node powers off or a flow that
booted the agent (deploying, cleaning) ends: the next agent is a new
one (:mod:`ironic_lite.common.agent_token`).
"""

import datetime
import secrets
from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import agent_token as tokens
from ironic_lite.common.agent_token import ISSUED_KEY
from ironic_lite.common.agent_token import MASK
from ironic_lite.common.agent_token import PREGENERATED_KEY
from ironic_lite.common.agent_token import TOKEN_KEY
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import agent_cleaning
from ironic_lite.conductor import endpoint
from ironic_lite.conductor import inspection
from ironic_lite.conductor import workers
from ironic_lite.conductor.clean_wait import LAST_HEARTBEAT_KEY
from ironic_lite.drivers import base
from lite_common import db as lite_db
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)


class RamdiskManager(endpoint.NodeEndpoint):
    """get_node_with_token, heartbeat, continue_inspection."""

    def __init__(
        self,
        conf: Any,
        identity: ConductorIdentity,
        pool: workers.WorkerPool | None = None,
    ) -> None:
        super().__init__(conf, identity)
        #: Where a heartbeat hands a node on (the agent deploy
        #: interface's cleaning).
        self.pool = pool

    @rpc.expected_exceptions(
        *endpoint.EXPECTED, exception.HardwareInspectionFailure
    )
    def continue_inspection(
        self,
        context: RequestContext,
        node_uuid: str,
        inventory: dict[str, Any],
        plugin_data: dict[str, Any],
    ) -> None:
        """What the agent found, to the node's inspect interface
        (:func:`ironic_lite.conductor.inspection.continue_inspection`)."""
        with self._task(context, node_uuid, 'continue inspection') as task:
            inspection.continue_inspection(task, inventory, plugin_data)

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def get_node_with_token(
        self, context: RequestContext, node_uuid: str
    ) -> dict[str, Any]:
        """The node, with a new agent token when it has none (made under
        its lock: NodeLocked when another operation holds it, and the
        agent looks up again); with a masked one when it has one."""
        with self._task(
            context, node_uuid, 'agent lookup', shared=True
        ) as task:
            if task.node.driver_internal_info.get(
                TOKEN_KEY
            ) and not self._unclaimed(task.node.driver_internal_info):
                LOG.warning(
                    'Node %s: an agent looked up the node while '
                    'it already has an agent token; the token is '
                    'not given again',
                    node_uuid,
                )
                row = task.node.as_dict()
                row['driver_internal_info'][TOKEN_KEY] = MASK
                return row
        with self._task(context, node_uuid, 'agent token') as task:
            info = task.node.driver_internal_info
            unclaimed = self._unclaimed(info)
            if not info.get(TOKEN_KEY) or unclaimed:
                info[TOKEN_KEY] = secrets.token_urlsafe()
                info[ISSUED_KEY] = lite_db.utcnow().isoformat()
                info.pop(PREGENERATED_KEY, None)
                task.save()
                LOG.info(
                    'Node %s: agent token made for a lookup%s',
                    node_uuid,
                    ' (the one made before was never used: its answer '
                    'was lost)'
                    if unclaimed
                    else '',
                )
                return task.node.as_dict()
            row = task.node.as_dict()
        row['driver_internal_info'][TOKEN_KEY] = MASK
        return row

    def _unclaimed(self, info: dict[str, Any]) -> bool:
        """A token made for a lookup whose answer never reached its
        agent: no heartbeat came with it within the heartbeat timeout
        (the agent, still without a token, keeps looking up; a machine
        that got it would have heartbeated by then). Such a token is
        made again, else the node waits for nothing until its callback
        timeout."""
        issued = info.get(ISSUED_KEY)
        if not issued or info.get(PREGENERATED_KEY):
            return False
        last = info.get(LAST_HEARTBEAT_KEY)
        if last and str(last) >= str(issued):
            return False
        age = lite_db.utcnow() - datetime.datetime.fromisoformat(str(issued))
        limit = self.conf.api.ramdisk_heartbeat_timeout
        return bool(age.total_seconds() > limit)

    @rpc.expected_exceptions(*endpoint.EXPECTED)
    def heartbeat(
        self,
        context: RequestContext,
        node_uuid: str,
        callback_url: str,
        agent_version: str | None,
        agent_token: str | None,
        agent_verify_ca: str | None = None,
        agent_status: str | None = None,
        agent_status_message: str | None = None,
    ) -> None:
        """Check the agent's token, then hand the heartbeat to the
        node's deploy interface.

        :raises InvalidParameterValue: no version and no status (an
            agent too old to talk to), or a wrong or missing token.
        """
        if agent_version is None and agent_status is None:
            raise exception.InvalidParameterValue(
                err='Agent did not transmit a version, and a version is '
                'required. Please update the agent being used.'
            )
        with self._task(context, node_uuid, 'heartbeat', shared=True) as task:
            if not tokens.is_valid(
                task.node.driver_internal_info, agent_token
            ):
                LOG.error(
                    'Node %s: heartbeat with an invalid or missing '
                    'agent token refused',
                    node_uuid,
                )
                raise exception.InvalidParameterValue(
                    err='Invalid or missing agent token received.'
                )
            LOG.debug(
                'Node %s: heartbeat from the agent at %s',
                node_uuid,
                callback_url,
            )
            if not (
                agent_cleaning.drives_agent(task) and self.pool is not None
            ):
                deploy = task.interfaces['deploy']
                assert isinstance(deploy, base.DeployInterface)
                deploy.heartbeat(
                    task,
                    callback_url,
                    agent_version or tokens.DEFAULT_AGENT_VERSION,
                    agent_verify_ca,
                    agent_status,
                    agent_status_message,
                )
                return
        # The agent deploy interface acts on the heartbeat under the
        # node's lock (upstream's upgrade_lock).
        agent_cleaning.on_heartbeat(
            context,
            self.conf,
            self.identity,
            self.pool,
            node_uuid,
            callback_url,
            agent_version or tokens.DEFAULT_AGENT_VERSION,
            agent_token,
            agent_status_message,
        )
