"""A server's disk written as an image and streamed to the Image API:
what createImage, createBackup (compute/snapshot.py) and shelve
(compute/shelve.py) share.

The API created the image ``queued``; the agent moves the server's task
to the flow's *pending* state (upstream: ``image_pending_upload``, or
``shelving_image_pending_upload``) while the driver writes the disk
image into a file under ``<state_path>/snapshots`` (0700), then to its
*uploading* state while the file streams to the Image API, which makes
the image ``active`` with its size and checksums. Each move is a
compare-and-swap from the task state read last: a delete or a state
reset meanwhile raises :class:`Changed`.

The image's status says what a flow taken up again (a restart, a lost
request) has left to do: ``queued``, all of it; ``active``, nothing (it
was uploaded); anything else (``saving``, ``killed``: an upload cut
short) cannot be finished.
"""

import os
from pathlib import Path
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from nova_lite.common import instance_ops
from nova_lite.compute.image_client import ImageClient
from nova_lite.objects.instance import Instance

LOG = logging.getLogger(__name__)


class Changed(Exception):
    """The server was deleted or its task changed meanwhile."""


class ImageGone(Exception):
    """The image was deleted meanwhile (by its owner)."""


def move(instance: Instance, task: str) -> None:
    """The task ``task`` (a swap from the task state read last).

    :raises Changed: the server was deleted or its task changed.
    """
    expected = instance.task_state
    instance.task_state = task
    if not instance_ops.saved(instance, [expected]):
        raise Changed()


def work_dir(conf: cfg.ConfigOpts) -> Path:
    """Where disk images are written before their upload, and unshelve
    downloads before the disk is made (0700)."""
    path = Path(conf.state_path) / 'snapshots'
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def write_and_upload(
    conf: cfg.ConfigOpts,
    driver: Any,
    images: ImageClient,
    instance: Instance,
    image_id: str,
    tasks: tuple[str, str],
) -> None:
    """Write the disk image (task ``tasks[0]``) and upload it (task
    ``tasks[1]``); the file is removed either way."""
    pending, uploading = tasks
    move(instance, pending)
    path = work_dir(conf) / image_id
    path.unlink(missing_ok=True)
    try:
        disk_format = driver.snapshot(instance, path)
        move(instance, uploading)
        images.set_format(image_id, disk_format, 'bare')
        images.upload(image_id, path)
    finally:
        path.unlink(missing_ok=True)


def upload_unless_done(
    conf: cfg.ConfigOpts,
    driver: Any,
    images: ImageClient,
    instance: Instance,
    image_id: str,
    tasks: tuple[str, str],
) -> None:
    """Write and upload the image if it is still ``queued``; nothing if
    it is ``active`` (an earlier run uploaded it).

    :raises ImageGone: the image was deleted.
    :raises RuntimeError: an earlier upload was cut short (the image
        cannot take data any more).
    """
    image = images.show(image_id)
    if image is None:
        raise ImageGone(f'image {image_id} was deleted')
    status = image.get('status')
    if status == 'active':
        LOG.info('Image %s was uploaded before', image_id, instance=instance)
        return
    if status != 'queued':
        raise RuntimeError(
            f'image {image_id} is {status}: an earlier upload was cut short'
        )
    write_and_upload(conf, driver, images, instance, image_id, tasks)


def discard(images: ImageClient, image_id: str, instance: Instance) -> None:
    """Delete the image if it is still there (a failure is not raised:
    the flow is already failing)."""
    try:
        if images.delete(image_id):
            LOG.info('Image %s deleted', image_id, instance=instance)
    except Exception as exc:
        LOG.warning(
            'Image %s could not be deleted: %s; delete it by hand',
            image_id,
            exc,
            instance=instance,
        )
