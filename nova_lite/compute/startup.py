"""Compute agent startup: identity, service record, nodes, instances.

Startup work grows with the number of instances only through batched
queries: one instance query per node, never one per instance.
"""

from pathlib import Path
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.compute import cleanup
from nova_lite.compute import identity
from nova_lite.compute import identity_check
from nova_lite.compute import move_recovery
from nova_lite.compute import resources
from nova_lite.compute import task_recovery
from nova_lite.compute.busy import Busy
from nova_lite.compute.holder import Holder
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)
# Rows per statement when the agent fills its records' integer links.
LINK_BATCH = 1000


def ensure_service(context: RequestContext, host: str) -> Any:
    try:
        return service_obj.Service.get_by_host_and_binary(
            context, host, service_obj.COMPUTE_BINARY
        )
    except exception.ServiceNotFound:
        service = service_obj.Service(
            context,
            host=host,
            binary=service_obj.COMPUTE_BINARY,
            topic='compute',
            version=service_obj.SERVICE_VERSION,
        )
        service.create()
        LOG.info(
            'Registered compute service %s on host %s', service.uuid, host
        )
        return service


def fill_links(context: RequestContext, host: str) -> None:
    """Fill the integer links this host's records lack (written before
    the links existed): compute_id of its instances, dest_compute_id of
    migrations to it. Batched UPDATEs, never one query per record;
    service_id of its nodes is set by ensure_node."""
    instances = instance_obj.InstanceList.fill_compute_ids(
        context, host, LINK_BATCH
    )
    migrations = migration_obj.MigrationList.fill_dest_compute_ids(
        context, host, LINK_BATCH
    )
    if instances or migrations:
        LOG.info(
            'Linked %d instance(s) of host %s to their compute node '
            'and %d migration(s) to their destination node by id',
            instances,
            host,
            migrations,
        )


def _warn_destroy_after_evacuate(conf: cfg.ConfigOpts) -> None:
    if conf.workarounds.destroy_after_evacuate is False:
        LOG.warning(
            '[workarounds]destroy_after_evacuate = False has no '
            'effect: local copies are destroyed only where an '
            'evacuation record says the instance moved away.'
        )


def _single_node_identity(
    context: RequestContext,
    host: str,
    driver: Any,
    identity_dirs: list[Path],
    on_hypervisor: list[str],
) -> tuple[str, Any]:
    """Check who this agent is, write its compute_id file if it has none;
    returns (nodename, plan). Nothing else has been touched yet."""
    nodenames = driver.get_available_nodes()
    if len(nodenames) != 1:
        raise exception.ConfigError(
            reason=f'driver {type(driver).__name__} reports {nodenames} '
            f'but does not declare manages_many_nodes'
        )
    nodename = nodenames[0]
    plan = identity_check.plan(
        context, host, nodename, identity_dirs, on_hypervisor
    )
    if plan.write_file:
        written = identity.write_local_node_uuid(
            driver.state_path, plan.node_uuid
        )
        if written.uuid != plan.node_uuid:
            raise exception.ComputeIdentityError(
                reason=f'{written.path} appeared while the agent was '
                f'starting (it holds {written.uuid}); it was kept. Start '
                f'the agent again to check it.'
            )
        what = (
            'a new compute node identity'
            if plan.source == 'new'
            else 'the identity of existing compute node'
        )
        LOG.info('Wrote %s %s to %s', what, plan.node_uuid, written.path)
    else:
        LOG.info(
            'Compute node identity %s (from %s)',
            plan.node_uuid,
            ', '.join(str(f.path) for f in plan.files),
        )
    return nodename, plan


def _ensure_nodes(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    host: str,
    driver: Any,
    service: Any,
    single: tuple[str, Any] | None,
) -> dict[str, Any]:
    nodes = {}
    if single is not None:
        nodename, plan = single
        nodes[nodename] = resources.ensure_node(
            context,
            conf,
            host,
            service.id,
            nodename,
            driver.get_node_resources(nodename),
            plan.node_uuid,
            plan.node,
        )
        return nodes
    for nodename in driver.get_available_nodes():
        nodes[nodename] = resources.ensure_node(
            context,
            conf,
            host,
            service.id,
            nodename,
            driver.get_node_resources(nodename),
            driver.get_node_uuid(nodename),
        )
    return nodes


def start(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    host: str,
    driver: Any,
    identity_dirs: list[Path],
    cleaner: cleanup.Cleaner,
    rpc: Any,
    busy: Busy,
    holder: Holder,
) -> tuple[Any, dict[str, Any]]:
    """Identity checks, records, then instances; in that order.

    A driver of many nodes (bare metal) keeps no compute_id file: its
    nodes' UUIDs come from the driver. The host name is taken (refused
    while another live process holds it) before any instance is looked
    at.
    """
    driver.init_host()
    on_hypervisor = driver.list_instance_uuids()
    single = None
    if not driver.manages_many_nodes:
        single = _single_node_identity(
            context, host, driver, identity_dirs, on_hypervisor
        )
    service = ensure_service(context, host)
    holder.take(service, conf.service_down_time)
    nodes = _ensure_nodes(context, conf, host, driver, service, single)
    fill_links(context, host)
    _warn_destroy_after_evacuate(conf)
    cleaner.run(context, nodes)
    recovered = task_recovery.at_start(
        context, conf, driver, nodes, host, busy
    )
    recovered += move_recovery.resume(context, rpc, driver, host, nodes, busy)
    if service.version != service_obj.SERVICE_VERSION:
        LOG.info(
            'Compute service %s: version %s -> %s',
            service.uuid,
            service.version,
            service_obj.SERVICE_VERSION,
        )
        service.version = service_obj.SERVICE_VERSION
        service.save()
    service.heartbeat()
    LOG.info(
        'Compute %s ready: %d node(s), %d instance(s) on the '
        'hypervisor, %d recovered from an interrupted operation',
        host,
        len(nodes),
        len(on_hypervisor),
        recovered,
    )
    return service, nodes
