"""A server's snapshot or backup (createImage, createBackup) on its host.

The API created the image (``queued``, the server's project its owner),
wrote its id (and, for a backup, the type and rotation) in the server's
system metadata with the task ``image_snapshot_pending`` or
``image_backup``, and cast the request here. The agent moves the task
as upstream does (``image_snapshot``, ``image_pending_upload`` while the
driver writes the disk image to a file under
``<state_path>/snapshots``, ``image_uploading`` while it streams to the
Image API, which makes the image ``active``: compute/image_upload.py,
shared with shelve), rotates the backups of the
type (the newest ``rotation`` are kept), and ends the task; the server
keeps its state throughout. Each move is a compare-and-swap from the
task state: a delete or a state reset meanwhile wins, and the image is
deleted.

A failure (the driver, the Image API) deletes the image and ends the
task, with the error in the action's event; the server is not put in
ERROR (its guest was not touched). A snapshot the agent took and lost
(a restart, a lost request) is taken up from its task
(compute/task_recovery.py): a ``queued`` image is written again, an
``active`` one was complete, any other (``saving``, ``killed``: an
upload cut short) is deleted.
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from lite_common.context import RequestContext
from nova_lite.common import instance_ops
from nova_lite.common import snapshot_meta
from nova_lite.common import states
from nova_lite.compute import image_upload
from nova_lite.compute.image_client import ImageClient
from nova_lite.objects import instance_action
from nova_lite.objects.instance import Instance

LOG = logging.getLogger(__name__)


def _end(instance: Instance) -> bool:
    """The task ended and the snapshot's keys removed (a swap from the
    task state read last); whether it was saved."""
    expected = instance.task_state
    instance.task_state = None
    instance.system_metadata = {
        k: v
        for k, v in instance.system_metadata.items()
        if k not in snapshot_meta.KEYS
    }
    return instance_ops.saved(instance, [expected])


def rotate(
    images: ImageClient, instance_uuid: str, backup_type: str, rotation: int
) -> list[str]:
    """Delete the backups of the type beyond the ``rotation`` newest, as
    upstream (only ``active`` ones count here: an image still being
    written is never deleted); the ids deleted."""
    backups = images.list(
        {
            'instance_uuid': instance_uuid,
            'image_type': 'backup',
            'backup_type': backup_type,
            'status': 'active',
        }
    )
    deleted = []
    for image in backups[rotation:]:
        if images.delete(image['id']):
            deleted.append(image['id'])
    return deleted


def snapshot(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    driver: Any,
    images: ImageClient,
    instance: Instance,
    host: str,
    resumed: bool = False,
) -> None:
    """Write and upload the image named in the server's system metadata;
    rotate the backups of a backup. See the module's docstring."""
    sysmeta = instance.system_metadata
    image_id = sysmeta.get(snapshot_meta.IMAGE_KEY)
    backup_type = sysmeta.get(snapshot_meta.BACKUP_TYPE_KEY)
    event = (
        'compute_backup_instance'
        if backup_type is not None
        else 'compute_snapshot_instance'
    )
    if not image_id:
        LOG.warning(
            'A snapshot task without an image; ended', instance=instance
        )
        _end(instance)
        return
    try:
        with instance_action.recorded(
            context, instance.uuid, event, host, resumed=resumed
        ):
            _run(conf, driver, images, instance, image_id)
    except image_upload.Changed:
        LOG.info(
            'Snapshot %s abandoned: the server was deleted or its task '
            'changed',
            image_id,
            instance=instance,
        )
        image_upload.discard(images, image_id, instance)
        return
    except image_upload.ImageGone:
        LOG.info(
            'Snapshot %s abandoned: the image was deleted',
            image_id,
            instance=instance,
        )
        _end(instance)
        return
    except Exception as exc:
        LOG.error('Snapshot %s failed: %s', image_id, exc, instance=instance)
        image_upload.discard(images, image_id, instance)
        _end(instance)
        return
    if backup_type is not None:
        _rotate_logged(
            images,
            instance,
            backup_type,
            int(sysmeta.get(snapshot_meta.ROTATION_KEY) or 0),
        )
    if _end(instance):
        LOG.info('Snapshot %s uploaded', image_id, instance=instance)


def _rotate_logged(
    images: ImageClient, instance: Instance, backup_type: str, rotation: int
) -> None:
    """Rotate; a failure leaves the older backups (and is logged): the
    new one is complete."""
    try:
        gone = rotate(images, instance.uuid, backup_type, rotation)
    except Exception as exc:
        LOG.warning(
            'Backups of type %s not rotated: %s',
            backup_type,
            exc,
            instance=instance,
        )
        return
    if gone:
        LOG.info('Backups rotated out: %s', ', '.join(gone), instance=instance)


def _run(
    conf: cfg.ConfigOpts,
    driver: Any,
    images: ImageClient,
    instance: Instance,
    image_id: str,
) -> None:
    if instance.task_state == states.IMAGE_SNAPSHOT_PENDING:
        image_upload.move(instance, states.IMAGE_SNAPSHOT)
    image_upload.upload_unless_done(
        conf,
        driver,
        images,
        instance,
        image_id,
        (states.IMAGE_PENDING_UPLOAD, states.IMAGE_UPLOADING),
    )


def recover(
    context: RequestContext,
    conf: cfg.ConfigOpts,
    driver: Any,
    instance: Instance,
    host: str,
) -> None:
    """Take up a snapshot an agent lost (compute/task_recovery.py)."""
    LOG.info(
        'Taking up an interrupted snapshot (task %s)',
        instance.task_state,
        instance=instance,
    )
    snapshot(
        context, conf, driver, ImageClient(conf), instance, host, resumed=True
    )
