"""The evacuation flow on the conductor: choose a destination, hand over.

The API has recorded the migration (``accepted``) and set the instance's
task state to ``rebuilding``. Here a destination is chosen among the
other hosts (or the requested one) in the zone the instance is pinned
to and within its server group's policy; with none, the migration is
``error`` and the instance ERROR with the reason as its fault, still
recorded on its source. The choice is a compare-and-swap, so a request
driven twice (two conductors) goes to one destination.
The destination claims and rebuilds (compute/evacuation.py).
"""

from oslo_config import cfg
from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import instance_ops
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor.migrate import choose
from nova_lite.conductor.migrate import load_move
from nova_lite.conductor.migrate import move_request
from nova_lite.objects.instance import Instance
from nova_lite.objects.migration import Migration
from nova_lite.scheduler import claims

LOG = logging.getLogger(__name__)


class Evacuator:
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self.compute_rpcapi = compute_rpcapi.ComputeAPI(conf)

    def evacuate(
        self,
        context: RequestContext,
        instance_uuid: str,
        migration_id: int,
        host: str | None,
        force: bool,
    ) -> None:
        instance, migration = load_move(context, instance_uuid, migration_id)
        if instance is None:
            return
        # As upstream: a forced host (2.29 to 2.67 ``force``, or any
        # host before 2.29) is not held to the zone; the hard policy of
        # the server group holds whatever the request (the
        # destination's claim checks it again).
        request = move_request(
            context,
            instance,
            (instance.vcpus, instance.memory_mb, instance.root_gb),
            in_zone=not (force and host),
        )
        try:
            node = claims.select_destination(
                context,
                self.conf,
                request,
                exclude_hosts=(migration.source_compute or '',),
                only_host=host,
            )
        except exception.NoValidHost as exc:
            self._no_host(instance, migration, exc)
            return
        if not choose(instance, migration, node, ['accepted']):
            return
        LOG.info(
            'Evacuating from %s to %s (migration %s%s)',
            migration.source_compute,
            node.host,
            migration.uuid,
            ', forced' if force else '',
            instance=instance,
        )
        self.compute_rpcapi.rebuild_instance(
            context, instance, migration, node.host
        )

    def _no_host(
        self,
        instance: Instance,
        migration: Migration,
        exc: exception.NoValidHost,
    ) -> None:
        """As upstream: the migration is ``error``, the instance ERROR
        with the reason as its fault (shown by ``server show``), still
        recorded on its source, which keeps its copy. Evacuate it again
        once a host has room."""
        LOG.warning(
            'Cannot evacuate: %s The instance stays recorded on %s.',
            exc.format_message(),
            migration.source_compute,
            instance=instance,
        )
        if not migration.transition(['accepted'], 'error'):
            LOG.info(
                'Evacuation %s is %s meanwhile; leaving it',
                migration.uuid,
                migration.status,
                instance=instance,
            )
            return
        instance.vm_state = states.ERROR
        instance.task_state = None
        instance.fault = instance_ops.fault(exc.format_message())
        if not instance_ops.saved(instance, [states.REBUILDING]):
            LOG.info(
                'Instance changed while its evacuation failed',
                instance=instance,
            )
