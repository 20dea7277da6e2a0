"""The domain rules of the server actions about its image: rebuild
(a new image on the same host) and createImage (a snapshot).

* **rebuild** (an active, stopped or failed server with no task): the
  new image, name, metadata (replaced when given), description, access
  addresses, key and host name (API 2.90) are written with the task
  ``rebuilding`` and the action record in one transaction; the host's
  agent replaces the disk content and the server is ACTIVE again
  (SHUTOFF if it was stopped, as upstream). The server's copy of the
  image's properties (compute_api/image_meta.py) is the new image's.
* **createImage** (active, stopped, paused or suspended, no task): the
  image is created ``queued``; its id is written in the server's system
  metadata with the task ``image_snapshot_pending`` and the action in
  one transaction, and the host's agent writes and uploads the disk
  (compute/snapshot.py).
* **createBackup** (the same states): the same, as an image of type
  ``backup`` with its ``backup_type``, the task ``image_backup``; the
  agent then keeps the ``rotation`` newest backups of that type.
"""

from typing import Any

from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import snapshot_meta
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute_api import image_meta
from nova_lite.compute_api import power as power_api
from nova_lite.compute_api import snapshots
from nova_lite.compute_api import trusted_certs
from nova_lite.db import images as image_db
from nova_lite.db import instance_actions as actions_db
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)
Row = dict[str, Any]

REBUILDABLE = (states.ACTIVE, states.STOPPED, states.ERROR)
SNAPSHOTTABLE = (
    states.ACTIVE,
    states.STOPPED,
    states.PAUSED,
    states.SUSPENDED,
)
# Request keys of a rebuild -> instance columns.
_COLUMNS = {
    'name': 'display_name',
    'description': 'display_description',
    'access_ip_v4': 'access_ip_v4',
    'access_ip_v6': 'access_ip_v6',
    'key_name': 'key_name',
    'key_data': 'key_data',
    'user_data': 'user_data',
    'hostname': 'hostname',
}


def _check(
    ctx: RequestContext, inst: Row, action: str, vm_states: tuple[str, ...]
) -> None:
    power_api.check_lock(ctx, inst)
    if inst['vm_state'] not in vm_states or inst['task_state'] is not None:
        raise exception.InstanceStateConflict(
            action=action,
            instance_uuid=inst['uuid'],
            vm_state=inst['vm_state'],
            task_state=inst['task_state'],
        )


class ImageActions:
    """Mixed into :class:`nova_lite.compute_api.moves.API`."""

    compute: compute_rpcapi.ComputeAPI

    def rebuild(
        self, ctx: RequestContext, inst: Row, image_id: str, changes: Row
    ) -> None:
        """``changes``: any of name, description, metadata,
        access_ip_v4, access_ip_v6, key_name and key_data, user_data,
        hostname (checked by the caller)."""
        _check(ctx, inst, 'rebuild', REBUILDABLE)
        if not inst['host']:
            raise exception.InstanceNotReady(instance_id=inst['uuid'])
        values: Row = {
            _COLUMNS[k]: v for k, v in changes.items() if k in _COLUMNS
        }
        if 'metadata' in changes:
            values['metadata_'] = changes['metadata']
        # The new image's properties replace the old one's (as upstream).
        system_metadata = {
            **image_meta.replaced(
                inst.get('system_metadata'),
                image_db.image_get(ctx, image_id),
                inst.get('flavor'),
            ),
            'image_base_image_ref': image_id,
        }
        if 'trusted_certs' in changes:
            system_metadata = trusted_certs.kept(
                system_metadata, changes['trusted_certs']
            )
        values.update(
            {
                'task_state': states.REBUILDING,
                'image_ref': image_id,
                'system_metadata': system_metadata,
            }
        )
        try:
            actions_db.begin(
                ctx,
                inst['uuid'],
                values,
                power_api.action_values(ctx, inst, 'rebuild'),
                [None],
                REBUILDABLE,
                unlocked=not ctx.is_admin,
            )
        except exception.UnexpectedTaskState:
            raise power_api.conflict(ctx, inst, 'rebuild') from None
        LOG.info(
            'Rebuilding on %s with image %s',
            inst['host'],
            image_id,
            instance_uuid=inst['uuid'],
        )
        self.compute.rebuild_server(
            ctx,
            instance_obj.Instance.get_by_uuid(ctx, inst['uuid']),
            inst['host'],
        )

    def create_image(
        self,
        ctx: RequestContext,
        inst: Row,
        name: str,
        metadata: dict[str, str],
    ) -> Row:
        """Create the snapshot's image and start the snapshot; the image
        row."""
        return self._snapshot(ctx, inst, name, metadata, None, 0)

    def create_backup(
        self,
        ctx: RequestContext,
        inst: Row,
        name: str,
        backup_type: str,
        rotation: int,
        metadata: dict[str, str],
    ) -> Row:
        """Create the backup's image and start the backup; the image
        row."""
        return self._snapshot(ctx, inst, name, metadata, backup_type, rotation)

    def _snapshot(
        self,
        ctx: RequestContext,
        inst: Row,
        name: str,
        metadata: dict[str, str],
        backup_type: str | None,
        rotation: int,
    ) -> Row:
        action = 'createImage' if backup_type is None else 'createBackup'
        _check(ctx, inst, action, SNAPSHOTTABLE)
        if not inst['host']:
            raise exception.InstanceNotReady(instance_id=inst['uuid'])
        sysmeta = dict(inst.get('system_metadata') or {})
        if backup_type is None:
            image = snapshots.create(ctx, inst, name, metadata)
            task = states.IMAGE_SNAPSHOT_PENDING
        else:
            image = snapshots.create(
                ctx,
                inst,
                name,
                {**metadata, 'backup_type': backup_type},
                image_type='backup',
            )
            task = states.IMAGE_BACKUP
            sysmeta[snapshot_meta.BACKUP_TYPE_KEY] = backup_type
            sysmeta[snapshot_meta.ROTATION_KEY] = str(rotation)
        sysmeta[snapshot_meta.IMAGE_KEY] = image['id']
        try:
            actions_db.begin(
                ctx,
                inst['uuid'],
                {'task_state': task, 'system_metadata': sysmeta},
                power_api.action_values(ctx, inst, action),
                [None],
                SNAPSHOTTABLE,
                unlocked=not ctx.is_admin,
            )
        except exception.UnexpectedTaskState:
            snapshots.delete(ctx, image['id'])
            raise power_api.conflict(ctx, inst, action) from None
        except Exception:
            snapshots.delete(ctx, image['id'])
            raise
        LOG.info(
            '%s %s (%s) on %s',
            action,
            image['id'],
            name,
            inst['host'],
            instance_uuid=inst['uuid'],
        )
        self.compute.snapshot_instance(
            ctx,
            instance_obj.Instance.get_by_uuid(ctx, inst['uuid']),
            inst['host'],
        )
        return image
