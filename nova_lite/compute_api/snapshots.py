"""Snapshot images of servers (createImage, createBackup, shelve).

A snapshot's image is created here, ``queued``, private to the server's
project, with the properties upstream Nova gives its snapshots
(``image_type`` ``snapshot`` or ``backup``, ``instance_uuid``,
``base_image_ref``, ``user_id``; ``backup_type`` for a backup) so that
clients and operators find it as they would upstream; the server's
agent writes its data (compute/snapshot.py, compute/shelve.py) and the
Image API makes it ``active``.
"""

from typing import Any

from oslo_utils import uuidutils

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import images as image_db

Row = dict[str, Any]
# What a snapshot takes from the image the server was booted from.
_INHERITED = ('disk_format', 'container_format', 'min_ram')


def _base(ctx: RequestContext, image_ref: str | None) -> Row:
    if not image_ref:
        return {}
    try:
        return image_db.image_get(ctx, image_ref)
    except exception.ImageNotFound:
        return {}


def create(
    ctx: RequestContext,
    inst: Row,
    name: str,
    metadata: dict[str, str] | None = None,
    image_type: str = 'snapshot',
) -> Row:
    """Record the snapshot image ``name`` of ``inst`` (``metadata``: more
    properties); its row."""
    base = _base(ctx, inst.get('image_ref'))
    flavor = inst.get('flavor') or {}
    properties = {
        **(metadata or {}),
        'image_type': image_type,
        'instance_uuid': inst['uuid'],
        'base_image_ref': inst.get('image_ref') or '',
        'user_id': ctx.user_id or '',
    }
    values = {
        'id': uuidutils.generate_uuid(),
        'name': name,
        'status': 'queued',
        'visibility': 'private',
        'owner': inst['project_id'],
        'size': None,
        'min_disk': max(base.get('min_disk') or 0, flavor.get('root_gb') or 0),
        'properties': properties,
    }
    for key in _INHERITED:
        if base.get(key) is not None:
            values[key] = base[key]
    values.setdefault('disk_format', 'raw')
    values.setdefault('container_format', 'bare')
    return image_db.image_create(ctx, values)


def delete(ctx: RequestContext, image_id: str | None) -> bool:
    """Delete a snapshot if it still exists; whether it did."""
    return image_db.delete_if_exists(ctx, image_id) if image_id else False
