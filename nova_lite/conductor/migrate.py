"""The cold migration and resize flow on the conductor: choose a
destination, hand over to it.

The API has set the instance's task state to ``resize_prep``, kept the
old and new flavors on it and recorded the migration (``pre-migrating``).
Here a destination is chosen: another host (the source too for a resize
when ``[DEFAULT]allow_resize_to_same_host`` is set), or the requested
one; either way in the zone the instance is pinned to and within its
server group's policy (:func:`move_request`). With none, the
migration is ``error`` and the instance stays where
it is, as it was. The destination claims (compute/move.py).
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute.move import clear_move
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.objects.instance import Instance
from nova_lite.objects.migration import Migration
from nova_lite.scheduler import claims
from nova_lite.scheduler import constraints

LOG = logging.getLogger(__name__)


def _excluded(conf: cfg.ConfigOpts, migration: Migration) -> tuple[str, ...]:
    """The source (unless a resize may stay), and the hosts that
    refused the move's claim before (compute/move.py)."""
    refused = tuple(migration.refused_hosts or ())
    if migration.migration_type == 'resize' and conf.allow_resize_to_same_host:
        return refused
    return (migration.source_compute or '', *refused)


def move_request(
    context: RequestContext,
    instance: Instance,
    resources: tuple[int, int, int],
    in_zone: bool = True,
    flavor: dict[str, Any] | None = None,
) -> claims.Request:
    """What a move asks of its destination beyond room, as upstream's
    request spec: the traits of ``flavor`` (default: the instance's),
    the zone the instance is pinned to (asked at create, or set by an
    unshelve; none: any zone) unless ``in_zone`` is False (a forced
    evacuation), and its server group's policy. An administrator's
    forced host of the original boot does not hold."""
    required, forbidden = claims.flavor_traits(
        instance.flavor if flavor is None else flavor
    )
    return claims.Request(
        instance.uuid,
        *resources,
        zone=instance.pinned_availability_zone if in_zone else None,
        group=constraints.group_of(context, instance.uuid),
        required_traits=required,
        forbidden_traits=forbidden,
    )


def choose(
    instance: Instance, migration: Migration, node: Any, statuses: list[str]
) -> bool:
    """Record ``node`` as the move's destination, once (a
    compare-and-swap); False, logged, when another conductor chose."""
    if migration.set_destination(
        node.host, node.hypervisor_hostname, statuses
    ):
        return True
    LOG.info(
        '%s %s already has a destination (%s/%s, %s); not choosing another',
        migration.migration_type.capitalize(),
        migration.uuid,
        migration.dest_compute,
        migration.dest_node,
        migration.status,
        instance=instance,
    )
    return False


def load_move(
    context: RequestContext, instance_uuid: str, migration_id: int
) -> tuple[Any, Any]:
    """(instance, migration); the instance is None, and the migration
    ``error``, when the instance was deleted before it was scheduled."""
    migration = migration_obj.Migration.get_by_id(context, migration_id)
    try:
        instance = instance_obj.Instance.get_by_uuid(context, instance_uuid)
    except exception.InstanceNotFound:
        LOG.info(
            'Instance %s was deleted before its %s was scheduled',
            instance_uuid,
            migration.migration_type,
        )
        migration.transition(['accepted', 'pre-migrating'], 'error')
        return None, migration
    if (
        migration.migration_type != 'evacuation'
        and migration.status != 'pre-migrating'
    ):
        # Ended (a state reset, an agent's failure) or claimed and gone
        # on: nothing of it is the conductor's any more.
        LOG.info(
            '%s %s is %s; not driven again',
            migration.migration_type.capitalize(),
            migration.uuid,
            migration.status,
            instance=instance,
        )
        return None, migration
    if (
        migration.migration_type != 'evacuation'
        and instance.task_state != states.RESIZE_PREP
    ):
        # A state reset took the instance out of the move before anything
        # moved: driving it again would claim a destination for nothing.
        LOG.warning(
            '%s %s is not driven again: the instance is in task '
            'state %s, not %s (a state reset?); the migration ends '
            'in error',
            migration.migration_type.capitalize(),
            migration.uuid,
            instance.task_state,
            states.RESIZE_PREP,
            instance=instance,
        )
        migration.transition(['pre-migrating'], 'error')
        return None, migration
    return instance, migration


class Migrator:
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self.compute_rpcapi = compute_rpcapi.ComputeAPI(conf)

    def migrate(
        self,
        context: RequestContext,
        instance_uuid: str,
        migration_id: int,
        host: str | None,
    ) -> None:
        instance, migration = load_move(context, instance_uuid, migration_id)
        if instance is None:
            return
        flavor = instance.new_flavor or instance.flavor or {}
        request = move_request(
            context,
            instance,
            (
                flavor.get('vcpus', 0),
                flavor.get('memory_mb', 0),
                flavor.get('root_gb', 0),
            ),
            flavor=flavor,
        )
        try:
            node = claims.select_destination(
                context,
                self.conf,
                request,
                exclude_hosts=_excluded(self.conf, migration),
                only_host=host,
            )
        except exception.NoValidHost as exc:
            self._no_host(instance, migration, exc)
            return
        if not choose(instance, migration, node, ['pre-migrating']):
            return
        LOG.info(
            '%s from %s to %s/%s (migration %s)',
            migration.migration_type.capitalize(),
            migration.source_compute,
            node.host,
            node.hypervisor_hostname,
            migration.uuid,
            instance=instance,
        )
        self.compute_rpcapi.prep_resize(
            context, instance, migration, node.host
        )

    def _no_host(
        self,
        instance: Instance,
        migration: Migration,
        exc: exception.NoValidHost,
    ) -> None:
        LOG.warning(
            'Cannot %s: %s The instance stays on %s.',
            'resize' if migration.migration_type == 'resize' else 'migrate',
            exc.format_message(),
            migration.source_compute,
            instance=instance,
        )
        if migration.transition(['pre-migrating'], 'error'):
            clear_move(instance, [states.RESIZE_PREP])
