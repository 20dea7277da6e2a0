"""The domain rules of shelve, shelveOffload and unshelve (upstream
Nova's states, refusals and records).

* **shelve** (an active, stopped, paused or suspended server with no
  task): a snapshot image ``<name>-shelved`` is recorded ``queued``
  (as createImage's), and the task ``shelving`` with the image's id in
  the instance's system metadata in one transaction with the action
  record; the host's agent powers the guest off, uploads its disk as
  the image's data, and the server is SHELVED (then offloaded at once
  with ``[DEFAULT]shelved_offload_time = 0``, the default).
* **shelveOffload** (SHELVED): the agent removes the guest and its disk
  and the server is SHELVED_OFFLOADED with host, node and compute_id
  all NULL (its resources free), the one state in which an instance is
  on no host.
* **unshelve** (either): a SHELVED server is started where it is; an
  offloaded one is scheduled again (placed in the same transaction that
  claims its resources) and its disk recreated from the snapshot by its
  new host (of the snapshot's data: the disk as it was shelved). The
  snapshot is deleted once the server is active.
"""

from collections.abc import Callable
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute_api import availability_zones
from nova_lite.compute_api import power as power_api
from nova_lite.compute_api import snapshots
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.db import instance_actions as actions_db
from nova_lite.db import services as service_db
from nova_lite.objects import instance as instance_obj
from nova_lite.objects.service import COMPUTE_BINARY
from nova_lite.scheduler.constraints import UNSHELVE_HOST

LOG = logging.getLogger(__name__)
Row = dict[str, Any]

SHELVABLE = (states.ACTIVE, states.STOPPED, states.PAUSED, states.SUSPENDED)
UNSHELVABLE = (states.SHELVED, states.SHELVED_OFFLOADED)


def _start(
    ctx: RequestContext,
    inst: Row,
    action: str,
    record: str,
    values: Row,
    vm_states: tuple[str, ...],
) -> None:
    """Set ``values`` (the task) and record the action, only while the
    server is in ``vm_states`` with no task (and unlocked for a
    non-admin): 409 otherwise, saying why."""
    power_api.check_lock(ctx, inst)
    if inst['vm_state'] not in vm_states or inst['task_state'] is not None:
        raise exception.InstanceStateConflict(
            action=action,
            instance_uuid=inst['uuid'],
            vm_state=inst['vm_state'],
            task_state=inst['task_state'],
        )
    try:
        actions_db.begin(
            ctx,
            inst['uuid'],
            values,
            power_api.action_values(ctx, inst, record),
            [None],
            vm_states,
            unlocked=not ctx.is_admin,
        )
    except exception.UnexpectedTaskState:
        raise power_api.conflict(ctx, inst, action) from None


#: Unshelve's ``availability_zone`` when the request names none (a
#: ``null`` zone unpins the server, 2.91).
KEEP_ZONE: Any = object()


def _check_offloaded(ctx: RequestContext, inst: Row) -> None:
    """Upstream's order: locked, not shelved at all (409), then not
    offloaded (409: a zone or host is for an offloaded server only)."""
    power_api.check_lock(ctx, inst)
    if inst['vm_state'] not in UNSHELVABLE or inst['task_state'] is not None:
        raise exception.InstanceStateConflict(
            action='unshelve',
            instance_uuid=inst['uuid'],
            vm_state=inst['vm_state'],
            task_state=inst['task_state'],
        )
    if inst['vm_state'] != states.SHELVED_OFFLOADED:
        raise exception.UnshelveInstanceInvalidState(
            instance_uuid=inst['uuid'], state=inst['vm_state']
        )


def _check_host(
    ctx: RequestContext,
    conf: cfg.ConfigOpts,
    host: str,
    zone: str | None,
    authorize_host: Callable[[], None],
) -> None:
    """An administrator's host (2.91): allowed by policy (403), a
    compute host (400), in the zone the server is to be pinned to
    (409; any host when it is pinned to none)."""
    authorize_host()
    if not service_db.service_get_all(ctx, host=host, binary=COMPUTE_BINARY):
        raise exception.UnshelveHostNotFound(host=host)
    if zone is not None:
        host_zone = availability_zones.host_zone(
            conf, availability_zones.host_zones(ctx), host
        )
        if host_zone != zone:
            raise exception.UnshelveHostNotInAZ(
                host=host, availability_zone=zone
            )


def unshelve_values(
    ctx: RequestContext,
    conf: cfg.ConfigOpts,
    inst: Row,
    zone: Any,
    host: str | None,
    authorize_host: Callable[[], None],
) -> Row:
    """The checks of unshelve's ``availability_zone`` (2.77; ``None``
    unpins from 2.91) and ``host`` (2.91), in upstream's order; the
    instance's new values (task, pinned zone, requested host)."""
    values: Row = {'task_state': states.UNSHELVING}
    zone_given = zone is not KEEP_ZONE
    if zone_given or host:
        _check_offloaded(ctx, inst)
    if (
        zone_given
        and zone is not None
        and (zone not in availability_zones.available_zones(ctx, conf))
    ):
        raise exception.ZoneNotAvailable()
    pinned = inst.get('pinned_availability_zone')
    if zone_given:
        pinned = zone
        values['pinned_availability_zone'] = zone
        if zone is not None:
            values['availability_zone'] = zone
    if host:
        _check_host(ctx, conf, host, pinned, authorize_host)
    sysmeta = dict(inst.get('system_metadata') or {})
    sysmeta.pop(UNSHELVE_HOST, None)
    if host:
        sysmeta[UNSHELVE_HOST] = host
    if sysmeta != (inst.get('system_metadata') or {}):
        values['system_metadata'] = sysmeta
    return values


class ShelveActions:
    """Mixed into :class:`nova_lite.compute_api.moves.API` (``self.compute``
    and ``self.conductor`` are the RPC clients)."""

    compute: compute_rpcapi.ComputeAPI
    conductor: conductor_rpcapi.ConductorAPI
    conf: cfg.ConfigOpts

    def shelve(self, ctx: RequestContext, inst: Row) -> None:
        if not inst['host']:
            raise exception.InstanceNotReady(instance_id=inst['uuid'])
        image = snapshots.create(
            ctx, inst, f'{inst["display_name"] or inst["uuid"]}-shelved'
        )
        sysmeta = {
            **(inst.get('system_metadata') or {}),
            'shelved_image_id': image['id'],
            'image_base_image_ref': inst.get('image_ref') or '',
        }
        try:
            _start(
                ctx,
                inst,
                'shelve',
                'shelve',
                {'task_state': states.SHELVING, 'system_metadata': sysmeta},
                SHELVABLE,
            )
        except Exception:
            snapshots.delete(ctx, image['id'])
            raise
        LOG.info(
            'Shelving on %s (snapshot %s)',
            inst['host'],
            image['id'],
            instance_uuid=inst['uuid'],
        )
        self.compute.shelve_instance(
            ctx,
            instance_obj.Instance.get_by_uuid(ctx, inst['uuid']),
            inst['host'],
        )

    def shelve_offload(self, ctx: RequestContext, inst: Row) -> None:
        _start(
            ctx,
            inst,
            'shelveOffload',
            'shelveOffload',
            {'task_state': states.SHELVING_OFFLOADING},
            (states.SHELVED,),
        )
        LOG.info(
            'Offloading from %s', inst['host'], instance_uuid=inst['uuid']
        )
        self.compute.shelve_offload_instance(
            ctx,
            instance_obj.Instance.get_by_uuid(ctx, inst['uuid']),
            inst['host'],
        )

    def unshelve(
        self,
        ctx: RequestContext,
        inst: Row,
        zone: Any = KEEP_ZONE,
        host: str | None = None,
        authorize_host: Callable[[], None] = lambda: None,
    ) -> None:
        """Unshelve. ``zone`` (2.77: a zone with an enabled compute
        service, else 400; 2.91: ``None`` unpins) and ``host`` (2.91,
        an administrator's) only for an offloaded server (409
        otherwise): it is scheduled there and stays pinned to the zone."""
        values = unshelve_values(
            ctx, self.conf, inst, zone, host, authorize_host
        )
        vm_states: tuple[str, ...] = UNSHELVABLE
        if zone is not KEEP_ZONE or host:
            vm_states = (states.SHELVED_OFFLOADED,)
        _start(ctx, inst, 'unshelve', 'unshelve', values, vm_states)
        LOG.info(
            'Unshelving (%s)%s',
            inst['vm_state'],
            f' to host {host}' if host else '',
            instance_uuid=inst['uuid'],
        )
        self.conductor.unshelve_instance(ctx, inst['uuid'])


def forget_snapshot(ctx: RequestContext, inst: Row) -> None:
    """On delete: the snapshot a shelved server keeps goes with it."""
    image_id = (inst.get('system_metadata') or {}).get('shelved_image_id')
    if image_id and snapshots.delete(ctx, image_id):
        LOG.info(
            'Deleted snapshot %s of the shelved server',
            image_id,
            instance_uuid=inst['uuid'],
        )
