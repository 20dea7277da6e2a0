"""``PUT`` and ``GET /image/v2/images/{image_id}/file``: an image's
bytes, as Glance v2 serves them.

Upload (``application/octet-stream``, streamed to
:mod:`nova_lite.compute_api.image_data`): only a ``queued`` image takes
data (409 otherwise, Glance's words); it is ``saving`` while the bytes
come and ``active`` with ``size``, ``checksum`` (MD5) and
``os_hash_algo``/``os_hash_value`` (SHA-512) once they are stored. An
upload past the project's ``[image_store]project_storage_quota`` or
onto a full store is a 413 and the image is ``queued`` again; a client
that sends fewer bytes than its ``Content-Length`` leaves it ``killed``
(a 400), as the data cannot be trusted; an image deleted during its
upload loses the bytes too (410).

Download: 204 for an image without data (Glance's answer), else the
bytes with ``Content-MD5`` (the checksum, as Glance sends it) and, for
one ``Range: bytes=`` range, a 206 with ``Content-Range`` (416 for a
range past the end).
"""

import re
from typing import Any

from oslo_log import log as logging
import webob
import webob.exc

from nova_lite.api import util
from nova_lite.api.handlers import images
from nova_lite.compute_api import image_data
from nova_lite.db import images as db

LOG = logging.getLogger(__name__)

_RANGE = re.compile(r'^bytes=(\d*)-(\d*)$')


def _not_allowed(status: str) -> webob.exc.HTTPConflict:
    return webob.exc.HTTPConflict(
        explanation=f'Image status transition from {status} to saving is '
        'not allowed'
    )


def _limit(req: webob.Request, owner: str | None) -> int | None:
    """The bytes ``owner``'s images may still hold (None: no quota)."""
    quota: int = util.conf(req).image_store.project_storage_quota
    if quota < 0:
        return None
    return max(0, quota - db.stored_bytes(util.context(req), owner))


def upload(req: webob.Request) -> webob.Response:
    """PUT /v2/images/{id}/file: store the image's data."""
    row = images.get_visible(req)
    util.authorize(req, 'image:upload_image', images.target(row))
    if req.content_type != 'application/octet-stream':
        raise webob.exc.HTTPUnsupportedMediaType(
            explanation='Image data must be application/octet-stream.'
        )
    ctx = util.context(req)
    image_id = row['id']
    if row['status'] != 'queued' or not db.transition(
        ctx, image_id, 'queued', {'status': 'saving'}
    ):
        raise _not_allowed(db.image_get(ctx, image_id)['status'])
    store = util.deps(req).image_store
    limit = _limit(req, row['owner'])
    try:
        stored = store.write(
            image_id, req.body_file, limit, req.content_length
        )
    except image_data.OverQuota as exc:
        db.transition(ctx, image_id, 'saving', {'status': 'queued'})
        raise webob.exc.HTTPRequestEntityTooLarge(
            explanation='Denying attempt to upload image because it '
            f'exceeds the quota: {exc.limit} bytes remain of the '
            "project's image storage quota."
        ) from None
    except image_data.StoreFull:
        db.transition(ctx, image_id, 'saving', {'status': 'queued'})
        raise webob.exc.HTTPRequestEntityTooLarge(
            explanation='Image storage media is full.'
        ) from None
    except image_data.Interrupted as exc:
        db.transition(ctx, image_id, 'saving', {'status': 'killed'})
        LOG.warning('Upload of image %s interrupted: %s', image_id, exc)
        raise webob.exc.HTTPBadRequest(
            explanation=f'Image data upload was interrupted: {exc}; the '
            'image is killed (delete it and upload again).'
        ) from None
    except BaseException:
        db.transition(ctx, image_id, 'saving', {'status': 'killed'})
        raise
    done = db.transition(
        ctx,
        image_id,
        'saving',
        {
            'status': 'active',
            'size': stored.size,
            'checksum': stored.checksum,
            'os_hash_algo': image_data.HASH_ALGO,
            'os_hash_value': stored.os_hash_value,
        },
    )
    if not done:
        store.delete(image_id)
        raise webob.exc.HTTPGone(
            explanation=f'Image {image_id} could not be found after upload. '
            'The image may have been deleted during the upload.'
        )
    LOG.info('Stored %d bytes of image %s', stored.size, image_id)
    return webob.Response(status=204)


def _range(req: webob.Request, size: int) -> tuple[int, int] | None:
    """(first, last) byte of a single ``Range: bytes=`` range; None
    without one; 416 for one that asks for nothing of the data."""
    header = req.headers.get('Range')
    if not header:
        return None
    match = _RANGE.match(header.strip())
    if match is None or match.groups() == ('', ''):
        return None  # not one simple range: the whole data (RFC 9110)
    first_text, last_text = match.groups()
    if first_text:
        first = int(first_text)
        last = min(int(last_text), size - 1) if last_text else size - 1
    else:  # the last N bytes
        first, last = max(0, size - int(last_text)), size - 1
    if first >= size or first > last:
        raise webob.exc.HTTPRequestRangeNotSatisfiable(
            headers={'Content-Range': f'bytes */{size}'}
        )
    return first, last


def download(req: webob.Request) -> webob.Response:
    """GET /v2/images/{id}/file: the image's data (or a range of it)."""
    row = images.get_visible(req)
    util.authorize(req, 'image:download_image', images.target(row))
    store = util.deps(req).image_store
    size = store.size(row['id']) if row['status'] == 'active' else None
    if size is None:
        return webob.Response(status=204)
    wanted = _range(req, size)
    first, last = wanted if wanted is not None else (0, size - 1)
    headers: dict[str, Any] = {'Content-Type': 'application/octet-stream'}
    if row['checksum']:
        headers['Content-MD5'] = row['checksum']
    try:
        body = store.read(row['id'], first, last - first + 1)
    except FileNotFoundError:
        return webob.Response(status=204)
    response = webob.Response(
        status=206 if wanted is not None else 200,
        headerlist=list(headers.items()),
        app_iter=body,
        content_length=last - first + 1,
    )
    if wanted is not None:
        response.headers['Content-Range'] = f'bytes {first}-{last}/{size}'
    return response
