"""The unshelve flow on the conductor.

A SHELVED server still has its guest on its host: it is started there
(task ``powering-on``; the agent's start ends its shelved state). An
offloaded one is scheduled like a new build: the claim places it (host,
node and compute_id together, in the transaction that grows the node's
usage, only while it is on no host) and its new host spawns it from the
snapshot, in the availability zone it is pinned to (asked at create,
or by this or an earlier unshelve), on the host an administrator asked
for (2.91) if any, and within its server group's policy. When no host
has room it stays SHELVED_OFFLOADED, task cleared, as upstream; a
request driven twice (a recovery pass, a second conductor) places it
once.
"""

from oslo_config import cfg
from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import instance_ops
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import build
from nova_lite.objects import instance as instance_obj
from nova_lite.objects.instance import Instance
from nova_lite.scheduler import constraints

LOG = logging.getLogger(__name__)


class Unshelver:
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self.compute_rpcapi = compute_rpcapi.ComputeAPI(conf)

    def unshelve(self, context: RequestContext, uuid: str) -> str | None:
        """Unshelve the server; the reason when it could not be placed
        (for the action's event)."""
        try:
            instance = instance_obj.Instance.get_by_uuid(context, uuid)
        except exception.InstanceNotFound:
            LOG.info('Instance %s was deleted before its unshelve', uuid)
            return None
        if instance.task_state != states.UNSHELVING:
            LOG.info(
                'Not unshelving: the server is in task %s now',
                instance.task_state,
                instance=instance,
            )
            return None
        if instance.vm_state == states.SHELVED:
            self._start(context, instance)
            return None
        return self._schedule(context, instance)

    def _start(self, context: RequestContext, instance: Instance) -> None:
        instance.task_state = states.POWERING_ON
        if not instance_ops.saved(instance, [states.UNSHELVING]):
            return
        LOG.info(
            'Unshelving: starting it on %s', instance.host, instance=instance
        )
        self.compute_rpcapi.start_instance(context, instance, instance.host)

    def _schedule(
        self, context: RequestContext, instance: Instance
    ) -> str | None:
        # The zone it is pinned to and its group hold; an
        # administrator's forced host of the original boot does not
        # (upstream resets forced destinations), the host an
        # administrator asked this unshelve to go to (2.91) does.
        system = instance.system_metadata or {}
        request = build.build_request(context, instance)._replace(
            force_host=system.get(constraints.UNSHELVE_HOST), force_node=None
        )
        try:
            node = build.claim_node(context, self.conf, request, instance)
        except exception.NoValidHost as exc:
            LOG.warning('Cannot unshelve: %s', exc, instance=instance)
            instance.task_state = None
            instance_ops.saved(instance, [states.UNSHELVING])
            return exc.format_message()
        if node is None:
            return None
        instance = instance_obj.Instance.get_by_uuid(context, instance.uuid)
        LOG.info('Unshelving on %s', node.host, instance=instance)
        self.compute_rpcapi.unshelve_instance(context, instance, node.host)
        return None
