"""Where a new server may go, from its create request (as upstream):

* ``availability_zone``: a zone with an enabled compute host (else a
  400, upstream's message); ``[DEFAULT]default_schedule_zone`` when
  none is named;
* ``zone:host``, ``zone:host:node`` or ``zone::node`` (administrators,
  ``os_compute_api:servers:create:forced_host``): that host or node,
  kept in the instance's system metadata for the conductor; the zone
  is then the host's own (a mismatching zone is dropped with a
  warning, as upstream does since bug 1934770);
* ``host`` and/or ``hypervisor_hostname`` (2.74, administrators,
  ``compute:servers:create:requested_destination``): an existing
  compute host or node (else a 400); unlike ``zone:host`` the requested
  zone still applies; not together with ``zone:host:node`` (400);
* the scheduler hint ``group``: a server group (else a 400) the new
  servers join.
"""

from typing import Any
from typing import NamedTuple

from oslo_config import cfg
from oslo_log import log as logging
import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import util
from nova_lite.compute_api import availability_zones as zones_api
from nova_lite.db import compute_nodes as node_db
from nova_lite.db import server_groups as group_db
from nova_lite.scheduler.constraints import FORCED_HOST
from nova_lite.scheduler.constraints import FORCED_NODE
from nova_lite.scheduler.constraints import REQUESTED_HOST
from nova_lite.scheduler.constraints import REQUESTED_NODE

LOG = logging.getLogger(__name__)
FORCED_HOST_POLICY = 'os_compute_api:servers:create:forced_host'
REQUESTED_POLICY = 'compute:servers:create:requested_destination'


class Placement(NamedTuple):
    availability_zone: str | None
    system_metadata: dict[str, str]
    group: dict[str, Any] | None


def _parse(
    conf: cfg.ConfigOpts, zone: str | None
) -> tuple[str | None, str | None, str | None]:
    """Upstream's ``parse_availability_zone``."""
    host = node = None
    if zone and ':' in zone:
        count = zone.count(':')
        if count == 1:
            zone, host = zone.split(':')
        elif count == 2 and '::' in zone:
            zone, node = zone.split('::')
        elif count == 2:
            zone, host, node = zone.split(':')
        else:
            raise webob.exc.HTTPBadRequest(
                explanation='Invalid input received: Unable to parse '
                'availability_zone'
            )
    return zone or conf.default_schedule_zone, host or None, node or None


def _host_zone(
    req: webob.Request, zone: str | None, host: str | None
) -> str | None:
    """Upstream's ``_validate_host_availability_zone``: the requested
    zone if the forced host is in it, else None."""
    actual = zones_api.host_zone(
        util.conf(req), zones_api.host_zones(util.context(req)), host
    )
    if zone == actual or zone is None:
        return zone
    LOG.warning(
        "Requested availability zone '%s' but forced host '%s' "
        'does not belong to this availability zone; ignoring the '
        'requested availability zone',
        zone,
        host,
    )
    return None


def _group(req: webob.Request, body: dict[str, Any]) -> dict[str, Any] | None:
    hints = (
        body.get('os:scheduler_hints')
        or body.get('OS-SCH-HNT:scheduler_hints')
        or {}
    )
    uuid = hints.get('group')
    if not uuid:
        return None
    if isinstance(uuid, list):
        uuid = uuid[0]
    try:
        return group_db.get(util.context(req), str(uuid))
    except exception.InstanceGroupNotFound as exc:
        raise webob.exc.HTTPBadRequest(
            explanation=exc.format_message()
        ) from None


def _requested(
    req: webob.Request, spec: dict[str, Any], forced: bool
) -> dict[str, str]:
    """The 2.74 requested destination, as system metadata."""
    host, node = spec.get('host'), spec.get('hypervisor_hostname')
    if not (host or node):
        return {}
    util.authorize(
        req, REQUESTED_POLICY, {'project_id': util.context(req).project_id}
    )
    if forced:
        raise webob.exc.HTTPBadRequest(
            explanation='One mechanism with host and/or hypervisor_hostname '
            'and another mechanism with zone:host:node are mutually '
            'exclusive.'
        )
    wanted = {
        k: v for k, v in (('host', host), ('hypervisor_hostname', node)) if v
    }
    if not node_db.compute_node_get_all(util.context(req), **wanted):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Compute host {node or host} could not be found.'
        )
    return {
        k: v for k, v in ((REQUESTED_HOST, host), (REQUESTED_NODE, node)) if v
    }


def placement(req: webob.Request, body: dict[str, Any]) -> Placement:
    spec = body['server']
    zone, host, node = _parse(util.conf(req), spec.get('availability_zone'))
    system: dict[str, str] = {}
    if host or node:
        util.authorize(
            req,
            FORCED_HOST_POLICY,
            {'project_id': util.context(req).project_id},
        )
        zone = _host_zone(req, zone, host) if host else zone
        system = {
            k: v for k, v in ((FORCED_HOST, host), (FORCED_NODE, node)) if v
        }
    system.update(_requested(req, spec, bool(host or node)))
    if (
        zone
        and not host
        and zone
        not in zones_api.available_zones(util.context(req), util.conf(req))
    ):
        raise webob.exc.HTTPBadRequest(
            explanation='The requested availability zone is not available'
        )
    return Placement(zone, system, _group(req, body))
