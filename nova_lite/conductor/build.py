"""The build flow on the conductor: schedule, claim, hand to a compute."""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common import db as lite_db
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.objects import instance as instance_obj
from nova_lite.objects.instance import Instance
from nova_lite.scheduler import claims
from nova_lite.scheduler import constraints

LOG = logging.getLogger(__name__)


def fault(code: int, message: str) -> dict[str, Any]:
    return {
        'code': code,
        'message': message,
        'created': lite_db.utcnow().isoformat() + 'Z',
    }


def build_request(
    context: RequestContext, instance: Instance
) -> claims.Request:
    """What placing ``instance`` asks: its resources and traits, the
    zone it is pinned to (asked at create or by an unshelve; none: any),
    an administrator's forced or requested host or node, its group."""
    system = instance.system_metadata or {}
    vcpus, memory_mb, root_gb = claims.counted_resources(
        instance.flavor, instance.vcpus, instance.memory_mb, instance.root_gb
    )
    required, forbidden = claims.flavor_traits(instance.flavor)
    return claims.Request(
        instance.uuid,
        vcpus,
        memory_mb,
        root_gb,
        zone=instance.pinned_availability_zone,
        force_host=(
            system.get(constraints.FORCED_HOST)
            or system.get(constraints.REQUESTED_HOST)
        ),
        force_node=(
            system.get(constraints.FORCED_NODE)
            or system.get(constraints.REQUESTED_NODE)
        ),
        group=constraints.group_of(context, instance.uuid),
        resource_class=claims.flavor_resource_class(instance.flavor),
        required_traits=required,
        forbidden_traits=forbidden,
    )


def claim_node(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    request: claims.Request,
    instance: Instance,
) -> Any:
    """Place the instance (:func:`claims.select_and_claim`); None,
    logged, when it was deleted meanwhile or is placed already (driven
    twice, by a recovery pass or another conductor: the first placement
    stands and goes on there). NoValidHost is the caller's."""
    try:
        return claims.select_and_claim(context, conf, request)
    except exception.InstanceNotFound:
        LOG.info(
            'Instance was deleted while it was scheduled', instance=instance
        )
    except exception.AlreadyPlaced as exc:
        LOG.info(
            'Not placing it again: %s', exc.format_message(), instance=instance
        )
    return None


class Builder:
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self.compute_rpcapi = compute_rpcapi.ComputeAPI(conf)

    def schedule_and_build(
        self, context: RequestContext, uuid: str
    ) -> str | None:
        """Place the instance and ask its host to build it; the reason
        when no host would take it (the instance is then in ERROR)."""
        try:
            instance = instance_obj.Instance.get_by_uuid(context, uuid)
        except exception.InstanceNotFound:
            LOG.info('Instance %s was deleted before it was scheduled', uuid)
            return None
        request = build_request(context, instance)
        try:
            node = claim_node(context, self.conf, request, instance)
        except exception.NoValidHost as exc:
            LOG.warning('Cannot schedule: %s', exc, instance=instance)
            self._set_error(instance, exc.format_message())
            return exc.format_message()
        if node is None:
            return None
        instance = instance_obj.Instance.get_by_uuid(context, uuid)
        LOG.info('Scheduled to %s', node.host, instance=instance)
        self.compute_rpcapi.build_and_run_instance(
            context, instance, node.host
        )
        return None

    def _set_error(self, instance: Instance, message: str) -> None:
        instance.vm_state = states.ERROR
        instance.task_state = None
        instance.fault = fault(500, message)
        try:
            instance.save(expected_task_state=[states.SCHEDULING])
        except (exception.InstanceNotFound, exception.UnexpectedTaskState):
            LOG.info(
                'Instance changed while failing its build; leaving it',
                instance=instance,
            )
