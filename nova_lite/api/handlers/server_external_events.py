"""POST /os-server-external-events: events other services (neutron,
cinder) send about servers, as upstream answers them.

Each event gets a code: 200 (accepted: its server has a host), 404 (no
such server), 422 (the server has no host yet), 400 (an event that needs
a ``tag`` has none); the whole answer is 200 when every event was
accepted, else 207 (upstream no longer answers 404 when none is). No
nova_lite step waits for these events (there is no networking or volume
service here): an accepted event is logged with its server, and a
``power-update`` (2.76) changes its state (see
:mod:`nova_lite.compute_api.external_events`).
"""

from typing import Any

from oslo_log import log as logging
import webob

from nova_lite.api import util
from nova_lite.api.schemas import server_external_events as schema
from nova_lite.db import instances as db
from nova_lite.policies import server_extras as policies

LOG = logging.getLogger(__name__)
#: Events upstream drops without a tag.
TAG_REQUIRED = ('volume-extended', 'power-update', 'accelerator-request-bound')


def _outcome(event: dict[str, Any], inst: dict[str, Any] | None) -> int:
    if inst is None:
        return 404
    if event['name'] in TAG_REQUIRED and event.get('tag') is None:
        return 400
    return 200 if inst['host'] else 422


def create_events(req: webob.Request) -> webob.Response:
    util.authorize(req, policies.EXTERNAL_EVENTS % 'create')
    body = util.read_body(req, schema.create_for(util.version(req)))
    events = body['events']
    uuids = sorted({event['server_uuid'] for event in events})
    found = {
        row['uuid']: row
        for row in db.instance_get_all(util.context(req), {'uuid': uuids})
    }
    answered = []
    accepted = []
    for event in events:
        inst = found.get(event['server_uuid'])
        code = _outcome(event, inst)
        answered.append(
            {
                **event,
                'code': code,
                'status': ('completed' if code == 200 else 'failed'),
            }
        )
        if code == 200 and inst is not None:
            LOG.info(
                'External event %s:%s for the instance on %s',
                event['name'],
                event.get('tag'),
                inst['host'],
                instance_uuid=event['server_uuid'],
            )
            accepted.append((event, inst))
    if accepted:
        util.deps(req).compute_api.external_events(util.context(req), accepted)
    status = 200 if all(e['code'] == 200 for e in answered) else 207
    return util.json_response({'events': answered}, status=status)
