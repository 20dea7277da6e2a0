"""Compute agent startup: service record, nodes, instance recovery.

Startup work grows with the number of instances only through batched
queries: one instance query per node, never one per instance.
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from nova_lite import exception
from nova_lite.compute import instance_ops
from nova_lite.compute import resources
from nova_lite.compute import states
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)


def ensure_service(context: Any, host: str) -> Any:
    try:
        return service_obj.Service.get_by_host_and_binary(
            context, host, service_obj.COMPUTE_BINARY)
    except exception.ServiceNotFound:
        service = service_obj.Service(
            context, host=host, binary=service_obj.COMPUTE_BINARY,
            topic='compute', version=service_obj.SERVICE_VERSION)
        service.create()
        LOG.info('Registered compute service %s on host %s', service.uuid,
                 host)
        return service


def _recover(context: Any, driver: Any, instance: Any) -> None:
    if instance.task_state == states.DELETING:
        LOG.info('Finishing a delete interrupted by a restart',
                 instance=instance)
        instance_ops.terminate(context, driver, instance)
    elif instance.task_state == states.SPAWNING:
        LOG.warning('Build interrupted by a restart; setting ERROR',
                    instance=instance)
        instance.vm_state = states.ERROR
        instance.task_state = None
        instance.fault = {'code': 500,
                          'message': 'Build interrupted by a compute '
                          'service restart.'}
        instance.save()


def init_instances(context: Any, driver: Any, nodes: dict[str, Any]) -> int:
    """Recover instances left mid-operation; returns how many exist."""
    total = 0
    for node in nodes.values():
        instances = instance_obj.InstanceList.get_by_compute_id(context,
                                                                node.id)
        total += len(instances)
        for instance in instances:
            if instance.task_state in (states.DELETING, states.SPAWNING):
                _recover(context, driver, instance)
    return total


def start(context: Any, conf: cfg.ConfigOpts, host: str,
          driver: Any) -> tuple[Any, dict[str, Any]]:
    driver.init_host()
    service = ensure_service(context, host)
    nodes = {}
    for nodename in driver.get_available_nodes():
        res = driver.get_node_resources(nodename)
        nodes[nodename] = resources.ensure_node(
            context, conf, host, service.id, nodename, res)
    count = init_instances(context, driver, nodes)
    if service.version != service_obj.SERVICE_VERSION:
        service.version = service_obj.SERVICE_VERSION
        service.save()
    service.heartbeat()
    LOG.info('Compute %s ready: %d node(s), %d instance(s)', host,
             len(nodes), count)
    return service, nodes
