"""The compute node record: creation, capacity reports, usage."""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.objects import compute_node as cn_obj
from nova_lite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)


def _capacity(
    conf: cfg.ConfigOpts, res: virt_driver.NodeResources
) -> dict[str, Any]:
    return {
        'vcpus': res['vcpus'],
        'memory_mb': res['memory_mb'],
        'local_gb': res['local_gb'],
        'hypervisor_type': res['hypervisor_type'],
        'hypervisor_version': res['hypervisor_version'],
        'cpu_allocation_ratio': conf.cpu_allocation_ratio,
        'ram_allocation_ratio': conf.ram_allocation_ratio,
        'disk_allocation_ratio': conf.disk_allocation_ratio,
        # A whole machine's class while it can take an instance.
        'resource_class': res.get('resource_class'),
        # What a flavor's trait:<NAME>=required|forbidden is matched to.
        'traits': sorted(res.get('traits') or []) or None,
    }


def _find_node(context: RequestContext, uuid: str) -> Any:
    try:
        return cn_obj.ComputeNode.get_by_uuid(context, uuid)
    except exception.ComputeNodeNotFound:
        return None


def ensure_node(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    host: str,
    service_id: int,
    nodename: str,
    res: virt_driver.NodeResources,
    uuid: str,
    node: Any = None,
) -> Any:
    """The ComputeNode ``uuid`` (``node`` when already loaded), created
    with that uuid when missing; capacity, service_id and host brought up
    to date."""
    if node is None:
        node = _find_node(context, uuid)
    if node is None:
        node = cn_obj.ComputeNode(
            context,
            uuid=uuid,
            host=host,
            hypervisor_hostname=nodename,
            service_id=service_id,
            **_capacity(conf, res),
        )
        node.create()
        LOG.info(
            'Created compute node %s (%s) for host %s',
            node.uuid,
            nodename,
            host,
        )
        return node
    for key, value in _capacity(conf, res).items():
        if getattr(node, key) != value:
            setattr(node, key, value)
    if node.service_id != service_id:
        LOG.info(
            'Compute node %s: service_id %s -> %s',
            node.uuid,
            node.service_id,
            service_id,
        )
        node.service_id = service_id
    if (node.host, node.hypervisor_hostname) != (host, nodename):
        # Only a driver of many nodes gets here (nodes move between its
        # agents); a single-node agent refused to start in that case.
        LOG.info(
            'Compute node %s moves from %s/%s to %s/%s',
            node.uuid,
            node.host,
            node.hypervisor_hostname,
            host,
            nodename,
        )
        node.host, node.hypervisor_hostname = host, nodename
    node.save()
    return node


def report(
    context: RequestContext, conf: cfg.ConfigOpts, driver: Any, node: Any
) -> None:
    """Periodic capacity report and usage refresh of one node."""
    res = driver.get_node_resources(node.hypervisor_hostname)
    for key, value in _capacity(conf, res).items():
        if getattr(node, key) != value:
            setattr(node, key, value)
    node.save()
    node.refresh_usage()
