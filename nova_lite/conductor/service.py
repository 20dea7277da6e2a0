"""The nova-lite-conductor service: its RPC server, heartbeat, move
recovery and reclaim passes (built by the daemon and the all-in-one)."""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from lite_common import context as lite_context
from lite_common import service as lite_service
from nova_lite import exception
from nova_lite import objects
from nova_lite.conductor import manager as conductor_manager
from nova_lite.conductor import reclaim
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.objects import base as objects_base
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)


class _ConductorRecord:
    """The conductor's own service record and heartbeat."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.service: Any = None

    def register(self) -> None:
        ctx = lite_context.get_admin_context()
        try:
            service = service_obj.Service.get_by_host_and_binary(
                ctx, self.host, service_obj.CONDUCTOR_BINARY
            )
        except exception.ServiceNotFound:
            service = service_obj.Service(
                ctx,
                host=self.host,
                binary=service_obj.CONDUCTOR_BINARY,
                topic=conductor_rpcapi.TOPIC,
                version=service_obj.SERVICE_VERSION,
            )
            service.create()
        service.heartbeat()
        # Only a record that exists replaces the one held: when the
        # database refused the create (it went away, a twin raced), the
        # next heartbeat finds the old one gone and registers again,
        # instead of beating forever with a record that has no id.
        self.service = service

    def heartbeat(self) -> None:
        try:
            self.service.heartbeat()
        except exception.ServiceNotFound:
            # Deleted by an operator while this conductor runs: it still
            # serves, so it registers again (it holds no identity to lose).
            LOG.warning(
                'The service record %s of nova-lite-conductor on '
                'host %s was deleted; registering it again.',
                self.service.uuid,
                self.host,
            )
            self.register()


def _reclaim_task(conf: cfg.ConfigOpts) -> list[lite_service.PeriodicTask]:
    """The reclaim of soft-deleted servers, with deferred delete on."""
    if conf.reclaim_instance_interval <= 0:
        return []
    reclaimer = reclaim.Reclaimer(conf)
    return [
        lite_service.PeriodicTask(
            'conductor-reclaim', reclaimer.run, reclaim.pass_interval(conf)
        )
    ]


def conductor_service(conf: cfg.ConfigOpts) -> lite_service.Service:
    objects.register_all()
    record = _ConductorRecord(conf.host)
    manager = conductor_manager.ConductorManager(conf)
    return lite_service.Service(
        conf,
        f'nova-lite-conductor ({conf.host})',
        messaging.Target(topic=conductor_rpcapi.TOPIC, server=conf.host),
        [manager],
        periodic_tasks=[
            lite_service.PeriodicTask(
                'conductor-heartbeat', record.heartbeat, conf.report_interval
            ),
            lite_service.PeriodicTask(
                'conductor-move-recovery',
                manager.recovery.run,
                conf.conductor.move_recovery_interval,
            ),
            *_reclaim_task(conf),
        ],
        on_start=record.register,
        serializer=objects_base.rpc_serializer(),
    )
