"""Server actions about its image: rebuild, createImage and
createBackup (POST /servers/{server_id}/action).

The rules are in :mod:`nova_lite.compute_api.images`. A rebuild answers
202 with the server (and its new admin password, as upstream with
``[api]enable_instance_password``); createImage answers 202 with the
image's URL in ``Location`` before 2.45 and ``{"image_id": ...}`` from
2.45; createBackup the same (no ``Location`` for a rotation of 0).
"""

import secrets
from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import boot_data
from nova_lite.api import microversion as mv
from nova_lite.api import server_ops
from nova_lite.api import util
from nova_lite.api.handlers import servers
from nova_lite.api.schemas import server_actions as schema
from nova_lite.compute_api import servers as servers_api
from nova_lite.db import instances as instance_db
from nova_lite.db import quotas as quota_db
from nova_lite.policies import resources as policies

Row = dict[str, Any]


def _check_metadata_quota(
    req: webob.Request, inst: Row, metadata: dict[str, str] | None
) -> None:
    if metadata is None:
        return
    allowed = quota_db.project_quotas(util.context(req), inst['project_id'])[
        'metadata_items'
    ]
    if 0 <= allowed < len(metadata):
        raise exception.MetadataLimitExceeded(allowed=allowed)


def _rebuild_changes(req: webob.Request, spec: Row) -> Row:
    changes: Row = {}
    for key in ('name', 'description', 'metadata', 'hostname'):
        if key in spec:
            changes[key] = spec[key]
    for field, column, family in (
        ('accessIPv4', 'access_ip_v4', 4),
        ('accessIPv6', 'access_ip_v6', 6),
    ):
        if field in spec:
            changes[column] = servers_api.access_address(spec[field], family)
    if 'key_name' in spec:
        changes['key_data'] = servers_api.check_key_name(
            util.context(req), spec['key_name']
        )
        changes['key_name'] = spec['key_name']
    if 'user_data' in spec:
        # 2.57: replaces the server's (null removes it), as upstream.
        changes['user_data'] = boot_data.user_data(spec['user_data'])
    if server_ops.TRUSTED_CERTS_KEY in spec:
        # As upstream: given (even null), it replaces the server's.
        changes['trusted_certs'] = server_ops.trusted_certs(
            req, spec, 'rebuild'
        )
    return changes


def rebuild(req: webob.Request, inst: Row, body: Row) -> webob.Response:
    util.authorize(
        req,
        policies.SERVERS % 'rebuild',
        {'project_id': inst['project_id'], 'user_id': inst['user_id']},
    )
    util.validate(schema.rebuild(util.version(req)), body)
    spec = body['rebuild']
    image_id = servers_api.rebuild_image(
        util.context(req), spec['imageRef'], inst.get('flavor') or {}
    )
    changes = _rebuild_changes(req, spec)
    _check_metadata_quota(req, inst, changes.get('metadata'))
    ctx = util.context(req)
    util.deps(req).compute_api.rebuild(ctx, inst, image_id, changes)
    inst = instance_db.instance_get_by_uuid(ctx, inst['uuid'])
    server = servers.render_changed(req, inst, rebuild=True)
    server['adminPass'] = spec.get('adminPass') or secrets.token_urlsafe(9)
    return util.json_response({'server': server}, status=202)


def _image_metadata(req: webob.Request, inst: Row, spec: Row) -> Row:
    """The image properties asked for (checked against the server
    metadata quota before 2.39, as upstream)."""
    metadata: Row = spec.get('metadata') or {}
    if not util.version(req).at_least(mv.NO_IMAGE_METADATA_QUOTA):
        try:
            _check_metadata_quota(req, inst, metadata)
        except exception.MetadataLimitExceeded:
            # Upstream's words for an image (the server's: the quota).
            raise webob.exc.HTTPForbidden(
                explanation='Image metadata limit exceeded'
            ) from None
    return metadata


def _accepted(req: webob.Request, image: Row, location: bool) -> Any:
    """202: the image id in the body from 2.45, before that its URL in
    ``Location`` (when ``location``)."""
    if util.version(req).at_least(mv.IMAGE_ID_IN_BODY):
        return util.json_response({'image_id': image['id']}, status=202)
    url = f'{util.base_url(req)}/image/v2/images/{image["id"]}'
    return webob.Response(
        status=202, headers={'Location': url} if location else {}
    )


def create_image(req: webob.Request, inst: Row, body: Row) -> webob.Response:
    util.authorize(
        req,
        policies.SERVERS % 'create_image',
        {'project_id': inst['project_id']},
    )
    util.validate(schema.create_image, body)
    spec = body['createImage']
    metadata = _image_metadata(req, inst, spec)
    image = util.deps(req).compute_api.create_image(
        util.context(req), inst, spec['name'], metadata
    )
    return _accepted(req, image, location=True)


def create_backup(req: webob.Request, inst: Row, body: Row) -> webob.Response:
    """A snapshot kept among the ``rotation`` newest of its
    ``backup_type`` (upstream answers a ``Location`` before 2.45 only
    when ``rotation`` is not 0)."""
    util.authorize(
        req, policies.CREATE_BACKUP, {'project_id': inst['project_id']}
    )
    util.validate(schema.create_backup, body)
    spec = body['createBackup']
    metadata = _image_metadata(req, inst, spec)
    rotation = int(spec['rotation'])
    image = util.deps(req).compute_api.create_backup(
        util.context(req),
        inst,
        spec['name'],
        spec['backup_type'],
        rotation,
        metadata,
    )
    return _accepted(req, image, location=rotation > 0)


ACTIONS = {
    'rebuild': rebuild,
    'createImage': create_image,
    'createBackup': create_backup,
}
