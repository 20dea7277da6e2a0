"""``POST /v1/events`` (1.54): external events about the network of the
nodes (a port bound, unbound or deleted), sent by the networking
service. As upstream, they are validated and logged; nothing waits for
them yet."""

from oslo_log import log as logging
import webob

from ironic_lite.api import util
from ironic_lite.api.schemas import events as schemas

LOG = logging.getLogger(__name__)


def post_events(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:events:post')
    body = util.read_body(req, schemas.CREATE)
    for event in body['events']:
        LOG.debug('Received external event: %s', event)
    return webob.Response(status=204)
