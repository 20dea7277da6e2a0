"""Builders of the nova_lite services (used by the daemons and the AIO)."""

from collections.abc import Callable
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from lite_common import context as lite_context
from lite_common import rpc
from lite_common import service as lite_service
from lite_common.wsgi import server as wsgi_server
from nova_lite import exception
from nova_lite import objects
from nova_lite.api import app as api_app
from nova_lite.api import errors as api_errors
from nova_lite.compute import identity
from nova_lite.compute import manager as compute_manager
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor import reclaim
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.objects import base as objects_base
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)
# Seconds after start of a compute agent's first housekeeping pass.
FIRST_HOUSEKEEPING = 2


def _serializer() -> Any:
    return rpc.get_serializer(objects_base.NovaLiteObjectSerializer)


class _ConductorRecord:
    """The conductor's own service record and heartbeat."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.service: Any = None

    def register(self) -> None:
        ctx = lite_context.get_admin_context()
        try:
            self.service = service_obj.Service.get_by_host_and_binary(
                ctx, self.host, service_obj.CONDUCTOR_BINARY)
        except exception.ServiceNotFound:
            self.service = service_obj.Service(
                ctx, host=self.host, binary=service_obj.CONDUCTOR_BINARY,
                topic=conductor_rpcapi.TOPIC,
                version=service_obj.SERVICE_VERSION)
            self.service.create()
        self.service.heartbeat()

    def heartbeat(self) -> None:
        try:
            self.service.heartbeat()
        except exception.ServiceNotFound:
            # Deleted by an operator while this conductor runs: it still
            # serves, so it registers again (it holds no identity to lose).
            LOG.warning('The service record %s of nova-lite-conductor on '
                        'host %s was deleted; registering it again.',
                        self.service.uuid, self.host)
            self.register()


def _reclaim_task(conf: cfg.ConfigOpts) -> list[lite_service.PeriodicTask]:
    """The reclaim of soft-deleted servers, with deferred delete on."""
    if conf.reclaim_instance_interval <= 0:
        return []
    reclaimer = reclaim.Reclaimer(conf)
    return [lite_service.PeriodicTask('conductor-reclaim', reclaimer.run,
                                      reclaim.pass_interval(conf))]


def conductor_service(conf: cfg.ConfigOpts) -> lite_service.Service:
    objects.register_all()
    record = _ConductorRecord(conf.host)
    manager = conductor_manager.ConductorManager(conf)
    return lite_service.Service(
        conf, f'nova-lite-conductor ({conf.host})',
        messaging.Target(topic=conductor_rpcapi.TOPIC, server=conf.host),
        [manager],
        periodic_tasks=[
            lite_service.PeriodicTask('conductor-heartbeat', record.heartbeat,
                                      conf.report_interval),
            lite_service.PeriodicTask(
                'conductor-move-recovery', manager.recovery.run,
                conf.conductor.move_recovery_interval),
            *_reclaim_task(conf),
        ],
        on_start=record.register,
        serializer=_serializer())


def compute_service(conf: cfg.ConfigOpts, host: str, state_path: str,
                    search_config_dirs: bool = True,
                    driver: str | None = None,
                    on_replaced: Callable[[], None] | None = None
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
        conf, host, state_path,
        identity.search_dirs(conf, state_path, search_config_dirs), driver,
        on_replaced)
    return lite_service.Service(
        conf, f'nova-lite-compute ({host})',
        messaging.Target(topic=compute_rpcapi.TOPIC, server=host),
        [manager],
        periodic_tasks=[
            lite_service.PeriodicTask(f'heartbeat-{host}', manager.heartbeat,
                                      conf.report_interval, call_context),
            lite_service.PeriodicTask(
                f'resources-{host}', manager.update_resources,
                conf.resource_update_interval, call_context),
            # The first pass soon after start (start-up cleaned up
            # already): evacuations to this host that a crash interrupted
            # go on without waiting a whole interval.
            lite_service.PeriodicTask(
                f'housekeeping-{host}', manager.housekeeping,
                conf.cleanup_interval, call_context,
                initial_delay=min(FIRST_HOUSEKEEPING, conf.cleanup_interval)),
        ],
        on_start=manager.init_host,
        on_stop=manager.stop,
        call_context=call_context,
        serializer=_serializer())


def api_server(conf: cfg.ConfigOpts) -> wsgi_server.APIServer:
    return wsgi_server.APIServer(
        'nova-lite-api', api_app.load_app(conf), conf.api.host,
        conf.api.port, wsgi_server.Settings.from_group(conf.api),
        api_errors.compute_error)
