"""The nova-lite-compute service: one agent's RPC server and periodic
tasks (built by the daemon and the all-in-one). Its object calls go
through the conductor."""

from collections.abc import Callable
from typing import Any

from oslo_config import cfg
import oslo_messaging as messaging

from lite_common import service as lite_service
from nova_lite import objects
from nova_lite.compute import identity
from nova_lite.compute import manager as compute_manager
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.objects import base as objects_base

# Seconds after start of a compute agent's first housekeeping pass.
FIRST_HOUSEKEEPING = 2


def compute_service(
    conf: cfg.ConfigOpts,
    host: str,
    state_path: str,
    search_config_dirs: bool = True,
    driver: str | None = None,
    on_replaced: Callable[[], None] | None = None,
) -> lite_service.Service:
    """A compute agent; its object calls go through the conductor.

    Its compute_id file is searched beside the configuration files and in
    ``state_path``; agents that share configuration files (the all-in-one)
    pass ``search_config_dirs=False`` and search ``state_path`` only.
    ``on_replaced`` is called once when another process took the host
    name over (the daemon stops with exit status 78).
    """
    objects.register_all()
    indirection = conductor_rpcapi.ObjectIndirectionAPI(conf)

    def call_context() -> Any:
        return objects_base.remote_objects(indirection)

    manager = compute_manager.ComputeManager(
        conf,
        host,
        state_path,
        identity.search_dirs(conf, state_path, search_config_dirs),
        driver,
        on_replaced,
    )
    return lite_service.Service(
        conf,
        f'nova-lite-compute ({host})',
        messaging.Target(topic=compute_rpcapi.TOPIC, server=host),
        [manager],
        periodic_tasks=[
            lite_service.PeriodicTask(
                f'heartbeat-{host}',
                manager.heartbeat,
                conf.report_interval,
                call_context,
            ),
            lite_service.PeriodicTask(
                f'resources-{host}',
                manager.update_resources,
                conf.resource_update_interval,
                call_context,
            ),
            # The first pass soon after start (start-up cleaned up
            # already): evacuations to this host that a crash interrupted
            # go on without waiting a whole interval.
            lite_service.PeriodicTask(
                f'housekeeping-{host}',
                manager.housekeeping,
                conf.cleanup_interval,
                call_context,
                initial_delay=min(FIRST_HOUSEKEEPING, conf.cleanup_interval),
            ),
        ],
        on_start=manager.init_host,
        on_stop=manager.stop,
        call_context=call_context,
        serializer=objects_base.rpc_serializer(),
    )
