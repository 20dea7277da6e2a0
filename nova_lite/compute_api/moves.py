"""The domain rules of the server actions that move a server, and of
resetting its state: preconditions, records, casts.

The API handlers parse and authorize, call one function here and turn
its exceptions into HTTP errors; nothing here knows HTTP. Instances are
passed as the database rows the handlers loaded.

Every action starts by setting the instance's task state while it has
none and recording its migration, in one transaction
(:func:`nova_lite.db.moves.begin_move`): two operations cannot start at
once, a crash cannot leave one without the other, and a move is refused
(409) while an older move of the instance is still open.
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import uuidutils

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute_api import deferred_delete
from nova_lite.compute_api import external_events
from nova_lite.compute_api import images as image_api
from nova_lite.compute_api import power as power_api
from nova_lite.compute_api import rescue as rescue_api
from nova_lite.compute_api import servers
from nova_lite.compute_api import shelve as shelve_api
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.db import compute_nodes as node_db
from nova_lite.db import instance_actions as actions_db
from nova_lite.db import migrations as migration_db
from nova_lite.db import moves as moves_db
from nova_lite.db import services as service_db
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.objects import service as service_obj
from nova_lite.scheduler import claims

LOG = logging.getLogger(__name__)
Row = dict[str, Any]

EVACUABLE = (states.ACTIVE, states.STOPPED, states.ERROR)
MOVABLE = (states.ACTIVE, states.STOPPED)
COLD_MOVE_TYPES = ['migration', 'resize']
RESETTABLE = {'active': states.ACTIVE, 'error': states.ERROR}


def check_state(inst: Row, action: str, vm_states: tuple[str, ...]) -> None:
    """409 unless the instance is in one of ``vm_states`` with no task."""
    if inst['vm_state'] not in vm_states or inst['task_state'] is not None:
        raise exception.InstanceStateConflict(
            action=action,
            instance_uuid=inst['uuid'],
            vm_state=inst['vm_state'],
            task_state=inst['task_state'],
        )


def compute_service(ctx: RequestContext, host: str) -> Row | None:
    """The nova-compute service record of ``host``, None without one."""
    try:
        return service_db.service_get(
            ctx, host=host, binary=service_obj.COMPUTE_BINARY
        )
    except exception.ServiceNotFound:
        return None


def _flavor_id(flavor: Row | None) -> Any:
    return (flavor or {}).get('flavorid')


def _migration_values(
    ctx: RequestContext,
    inst: Row,
    migration_type: str,
    status: str,
    old_flavor: Row | None,
    new_flavor: Row | None,
) -> Row:
    """The new migration record; its user and project are the
    requester's, as upstream's (shown from 2.80)."""
    return {
        'uuid': uuidutils.generate_uuid(),
        'instance_uuid': inst['uuid'],
        'migration_type': migration_type,
        'status': status,
        'source_compute': inst['host'],
        'source_node': inst['node'],
        'old_flavor_id': _flavor_id(old_flavor),
        'new_flavor_id': _flavor_id(new_flavor),
        'project_id': ctx.project_id,
        'user_id': ctx.user_id,
    }


def _begin(
    ctx: RequestContext,
    inst: Row,
    action: str,
    instance_values: Row,
    migration_values: Row,
    quota_project: str | None = None,
    record: str | None = None,
) -> Row:
    """Start the move and record the request's instance action
    (``record``, default ``action``) in the same transaction."""
    try:
        return moves_db.begin_move(
            ctx,
            inst['uuid'],
            instance_values,
            migration_values,
            quota_project,
            power_api.action_values(ctx, inst, record or action),
        )
    except exception.UnexpectedTaskState:
        raise exception.InstanceStateConflict(
            action=action,
            instance_uuid=inst['uuid'],
            vm_state=inst['vm_state'],
            task_state='(another operation started)',
        ) from None


def _check_not_whole_machine(
    ctx: RequestContext, inst: Row, action: str
) -> None:
    """A bare metal server is its machine: it cannot move (409)."""
    if not inst['compute_id']:
        return
    try:
        node = node_db.compute_node_get(ctx, id=inst['compute_id'])
    except exception.ComputeNodeNotFound:
        return
    if node['hypervisor_type'] == claims.WHOLE_MACHINE_TYPE:
        raise exception.Conflict(
            f"Cannot '{action}' instance {inst['uuid']}: it is a bare "
            f'metal server (node {node["hypervisor_hostname"]}), and the '
            f'machine is the server.'
        )


class API(
    power_api.PowerActions,
    shelve_api.ShelveActions,
    image_api.ImageActions,
    deferred_delete.DeferredDelete,
    external_events.ExternalEvents,
    rescue_api.RescueActions,
    servers.ServerLifecycle,
):
    """Server create and delete, moves, state resets, power, shelve,
    image, rescue and deferred delete actions; ``conductor`` and
    ``compute`` are the RPC clients."""

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        conductor: conductor_rpcapi.ConductorAPI,
        compute: compute_rpcapi.ComputeAPI,
    ) -> None:
        self.conf = conf
        self.conductor = conductor
        self.compute = compute

    # evacuate ----------------------------------------------------------

    def evacuate(
        self,
        ctx: RequestContext,
        inst: Row,
        host: str | None,
        force: bool,
        target_state: str | None = None,
    ) -> Row:
        """Record the evacuation (``accepted``, task ``rebuilding``) and
        hand it to the conductor. Refused while the source compute
        service is up: its copy is then the live one. ``force``: the
        host is not held to the instance's zone; ``target_state``
        (``stopped`` from 2.95) is kept on the record for the
        destination."""
        if host is not None:
            if compute_service(ctx, host) is None:
                raise exception.ComputeHostNotFound(host=host)
            if host == inst['host']:
                raise exception.Invalid(
                    "The target host can't be the same one."
                )
        check_state(inst, 'evacuate', EVACUABLE)
        _check_not_whole_machine(ctx, inst, 'evacuate')
        if not inst['host']:
            raise exception.Conflict(
                f"Cannot 'evacuate' instance {inst['uuid']}: it is on no host."
            )
        source = compute_service(ctx, inst['host'])
        if source is not None and service_obj.is_up(
            source, self.conf.service_down_time
        ):
            raise exception.ComputeServiceInUse(host=inst['host'])
        flavor = inst.get('flavor')
        values = _migration_values(
            ctx, inst, 'evacuation', 'accepted', flavor, flavor
        )
        values['dest_compute'] = host
        values['target_state'] = target_state
        values['forced'] = bool(force and host)
        migration = _begin(
            ctx, inst, 'evacuate', {'task_state': states.REBUILDING}, values
        )
        LOG.info(
            'Evacuation %s from %s accepted (target %s)',
            migration['uuid'],
            inst['host'],
            host or 'chosen by the scheduler',
            instance_uuid=inst['uuid'],
        )
        self.conductor.evacuate_instance(
            ctx, inst['uuid'], migration['id'], host, force
        )
        return migration

    # cold migration and resize -------------------------------------------

    def _check_movable(
        self, ctx: RequestContext, inst: Row, action: str
    ) -> None:
        power_api.check_lock(ctx, inst)
        check_state(inst, action, MOVABLE)
        _check_not_whole_machine(ctx, inst, action)
        if not inst['compute_id']:
            raise exception.Conflict(
                f"Cannot '{action}' instance {inst['uuid']}: it is "
                f'linked to no compute node (an old record: run '
                f'nova-lite-manage db online_data_migrations).'
            )

    def _start_move(
        self,
        ctx: RequestContext,
        inst: Row,
        action: str,
        new_flavor: Row,
        host: str | None,
    ) -> Row:
        old_flavor = inst['flavor'] or {}
        same = _flavor_id(new_flavor) == _flavor_id(old_flavor)
        values = _migration_values(
            ctx,
            inst,
            'migration' if same else 'resize',
            'pre-migrating',
            old_flavor,
            new_flavor,
        )
        # The requested host (the conductor chooses only it; a move
        # driven again after a lost request keeps to it). A destination
        # the scheduler chooses may be replaced if it refuses at its
        # claim (refused_hosts a list); a requested one may not (NULL).
        values['dest_compute'] = host
        values['refused_hosts'] = None if host else []
        migration = _begin(
            ctx,
            inst,
            action,
            {
                'task_state': states.RESIZE_PREP,
                'old_flavor': old_flavor,
                'new_flavor': new_flavor,
            },
            values,
            # A resize grows cores and RAM within the project's quota.
            None if same else inst['project_id'],
        )
        LOG.info(
            '%s from %s accepted (migration %s, target %s)',
            migration['migration_type'].capitalize(),
            inst['host'],
            migration['uuid'],
            host or 'chosen by the scheduler',
            instance_uuid=inst['uuid'],
        )
        self.conductor.migrate_server(ctx, inst['uuid'], migration['id'], host)
        return migration

    def migrate(self, ctx: RequestContext, inst: Row, host: str | None) -> Row:
        self._check_movable(ctx, inst, 'migrate')
        if host is not None:
            if compute_service(ctx, host) is None:
                raise exception.Invalid(
                    f'Compute host {host} could not be found.'
                )
            if host == inst['host']:
                raise exception.Invalid(
                    'Cannot migrate the instance to the host where it runs.'
                )
        return self._start_move(
            ctx, inst, 'migrate', inst['flavor'] or {}, host
        )

    def resize(self, ctx: RequestContext, inst: Row, new_flavor: Row) -> Row:
        """``new_flavor``: the snapshot an instance keeps of a flavor."""
        self._check_movable(ctx, inst, 'resize')
        current = inst['flavor'] or {}
        if _flavor_id(new_flavor) == _flavor_id(current):
            raise exception.Invalid(
                'When resizing, instances must change flavor!'
            )
        if new_flavor['root_gb'] < (current.get('root_gb') or 0):
            raise exception.Invalid(
                'Resizing to a smaller root disk is not supported.'
            )
        return self._start_move(ctx, inst, 'resize', new_flavor, None)

    # confirm and revert ----------------------------------------------------

    @staticmethod
    def last_finished(ctx: RequestContext, inst: Row) -> Row | None:
        """The instance's ``finished`` cold move, None without one."""
        rows = migration_db.migration_get_all(
            ctx,
            {
                'instance_uuid': inst['uuid'],
                'status': 'finished',
                'migration_types': COLD_MOVE_TYPES,
            },
            limit=1,
        )
        return rows[0] if rows else None

    def _take_finished(
        self, ctx: RequestContext, inst: Row, action: str, status: str
    ) -> Row:
        power_api.check_lock(ctx, inst)
        check_state(inst, action, (states.RESIZED,))
        migration = self.last_finished(ctx, inst)
        if migration is None:
            raise exception.Invalid('Instance has not been resized.')
        if not migration_db.migration_transition(
            ctx, migration['id'], ('finished',), status
        ):
            raise exception.Conflict(
                f"Cannot '{action}' instance {inst['uuid']}: "
                f'migration {migration["uuid"]} is no longer finished.'
            )
        return migration

    def _cast_confirm(
        self, ctx: RequestContext, inst: Row, migration: Row
    ) -> None:
        """Ask the source to delete the copy it kept."""
        self.compute.confirm_resize(
            ctx,
            instance_obj.Instance.get_by_uuid(ctx, inst['uuid']),
            migration_obj.Migration.get_by_id(ctx, migration['id']),
            migration['source_compute'],
        )

    def confirm_resize(self, ctx: RequestContext, inst: Row) -> None:
        migration = self._take_finished(
            ctx, inst, 'confirmResize', 'confirming'
        )
        actions_db.record(
            ctx, power_api.action_values(ctx, inst, 'confirmResize')
        )
        LOG.info(
            'Confirming migration %s: %s cleans up',
            migration['uuid'],
            migration['source_compute'],
            instance_uuid=inst['uuid'],
        )
        self._cast_confirm(ctx, inst, migration)

    def revert_resize(self, ctx: RequestContext, inst: Row) -> None:
        migration = self._take_finished(ctx, inst, 'revertResize', 'reverting')
        try:
            moves_db.start_task(
                ctx,
                inst['uuid'],
                {'task_state': states.RESIZE_REVERTING},
                power_api.action_values(ctx, inst, 'revertResize'),
            )
        except exception.UnexpectedTaskState:
            migration_db.migration_transition(
                ctx, migration['id'], ('reverting',), 'finished'
            )
            raise exception.InstanceStateConflict(
                action='revertResize',
                instance_uuid=inst['uuid'],
                vm_state=inst['vm_state'],
                task_state='(another operation started)',
            ) from None
        LOG.info(
            'Reverting migration %s back to %s',
            migration['uuid'],
            migration['source_compute'],
            instance_uuid=inst['uuid'],
        )
        self.compute.revert_resize(
            ctx,
            instance_obj.Instance.get_by_uuid(ctx, inst['uuid']),
            migration_obj.Migration.get_by_id(ctx, migration['id']),
            inst['host'],
        )

    def confirm_before_delete(self, ctx: RequestContext, inst: Row) -> None:
        """A server deleted in VERIFY_RESIZE: confirm its move first, as
        upstream does, so that the source deletes the copy it kept."""
        if inst['vm_state'] != states.RESIZED:
            return
        migration = self.last_finished(ctx, inst)
        if migration is None or not migration_db.migration_transition(
            ctx, migration['id'], ('finished',), 'confirming'
        ):
            return
        LOG.info(
            'Confirming migration %s before deleting the instance',
            migration['uuid'],
            instance_uuid=inst['uuid'],
        )
        self._cast_confirm(ctx, inst, migration)

    # a way out of stuck states ------------------------------------------

    def reset_state(self, ctx: RequestContext, inst: Row, state: str) -> Row:
        """os-resetState: ``active`` or ``error``, no task. Never
        refused (upstream's: it is the way out of a stuck state). The
        moves it takes the instance out of end with it, in the same
        transaction (db/moves.py): unfinished evacuations ``done`` where
        the destination already holds the instance, ``failed`` otherwise
        (then the instance stays where its record places it, and its
        source keeps the copy; evacuate it again when that host is
        down); cold migrations and resizes in flight ``error`` (the
        instance stays where its record places it; a copy its source
        kept aside is put back there, see compute/cleanup.py). A new
        move may then start at once."""
        vm_state = RESETTABLE[state]
        row, ended = moves_db.reset_state(
            ctx,
            inst['uuid'],
            vm_state,
            power_api.action_values(ctx, inst, 'resetState'),
        )
        LOG.warning(
            'State reset by an administrator: vm_state %s -> %s, '
            'task_state %s -> None; evacuations ended: %d done, %d '
            'failed; cold moves ended in error: %d',
            inst['vm_state'],
            vm_state,
            inst['task_state'],
            ended['done'],
            ended['failed'],
            ended['error'],
            instance_uuid=inst['uuid'],
        )
        return row


# compute services ---------------------------------------------------------


def _uncleaned(ctx: RequestContext, host: str) -> tuple[int, str]:
    """How many evacuations from ``host`` are not cleaned up, and a
    description by status."""
    counts = migration_db.uncleaned_evacuations_count(ctx, host)
    told = ', '.join(f'{n} {status}' for status, n in sorted(counts.items()))
    return sum(counts.values()), told


def _what_to_do(host: str) -> str:
    return (
        f'Start (or keep running) the nova-lite-compute agent on '
        f'{host}: it destroys the copies of evacuated instances once '
        f'their evacuations are done, and marks them completed; '
        f'evacuations still in progress must finish or fail first '
        f'(see "openstack server migration list --host {host}"). If '
        f'the host is gone for good, run "nova-lite-manage compute '
        f'forget-evacuations --host {host}" instead.'
    )


def check_force_up(ctx: RequestContext, service: Row, values: Row) -> None:
    """Unsetting forced_down is refused while evacuations left copies on
    the host that its agent has not cleaned up."""
    if values.get('forced_down') is not False or not service['forced_down']:
        return
    count, told = _uncleaned(ctx, service['host'])
    if count:
        raise exception.Invalid(
            f'Service {service["host"]} has {count} evacuated '
            f'instance(s) whose local copies it has not cleaned up yet '
            f'({told}). {_what_to_do(service["host"])} Then unset '
            f'forced_down.'
        )


def check_service_deletable(
    ctx: RequestContext, service: Row, hosting: bool
) -> None:
    """Deleting a compute service is refused while its nodes hold
    instances (``hosting``), while evacuations left copies on its host
    that were not cleaned up, or while other moves from or to the host
    are in progress."""
    if hosting:
        raise exception.Conflict(
            'Unable to delete compute service that is hosting '
            'instances. Migrate or delete the instances first.'
        )
    count, told = _uncleaned(ctx, service['host'])
    if count:
        raise exception.Conflict(
            f'Unable to delete compute service of {service["host"]}:'
            f' {count} evacuated instance(s) left copies there that it '
            f'has not cleaned up ({told}). {_what_to_do(service["host"])}'
        )
    moving = [
        m
        for m in migration_db.migration_get_all(ctx, {'host': service['host']})
        if m['status'] not in FINISHED_MIGRATION_STATUSES
    ]
    if moving:
        LOG.info(
            'Not deleting compute service %s of host %s: migrations '
            '%s are in progress',
            service['uuid'],
            service['host'],
            ', '.join(m['uuid'] for m in moving),
        )
        raise exception.Conflict(
            'Unable to delete compute service that has in-progress '
            'migrations. Complete the migrations or delete the instances '
            'first.'
        )


# Migration statuses after which a migration no longer holds a host
# (an evacuation's ``done`` still does: see check_service_deletable).
FINISHED_MIGRATION_STATUSES = frozenset(
    (
        'confirmed',
        'reverted',
        'error',
        'failed',
        'completed',
        'cancelled',
        'done',
    )
)
