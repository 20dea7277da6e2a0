"""POST /os-aggregates/{aggregate_id}/images (2.81): ask the hosts of
an aggregate to cache images, as upstream validates it.

The request is checked as upstream checks it (administrators, an
integer aggregate id (400), at least one image, no duplicates (400), an
existing aggregate (404), images the catalog knows (400)) and answered
202. No virt driver here keeps an image cache (a server's disk is made
from the catalog at build time), so nothing is copied: the request is
logged with the aggregate's hosts, as upstream's drivers without a
cache log it.
"""

from oslo_log import log as logging
import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.handlers import aggregates
from nova_lite.api.schemas import aggregates as schema
from nova_lite.db import aggregates as db
from nova_lite.db import images as image_db
from nova_lite.policies import aggregates as policies

LOG = logging.getLogger(__name__)
SINCE = mv.AGGREGATE_IMAGE_CACHE


def cache_images(req: webob.Request) -> webob.Response:
    util.authorize(req, policies.NEW_AGGREGATES % 'images', {})
    body = util.read_body(req, schema.images)
    agg_id = aggregates.aggregate_id(req)
    image_ids = [item['id'] for item in body['cache']]
    if len(set(image_ids)) != len(image_ids):
        raise webob.exc.HTTPBadRequest(
            explanation='Duplicate images in request'
        )
    ctx = util.context(req)
    agg = db.get(ctx, agg_id)
    for image_id in image_ids:
        try:
            image_db.image_get(ctx, image_id)
        except exception.ImageNotFound as exc:
            raise webob.exc.HTTPBadRequest(
                explanation=exc.format_message()
            ) from None
    LOG.info(
        'Image cache request for aggregate %s (hosts %s, images %s): '
        'no driver here keeps an image cache; nothing to do',
        agg['id'],
        ', '.join(agg['hosts']) or 'none',
        ', '.join(image_ids),
    )
    return webob.Response(status=202)
