"""The HTTP half of server create and delete, and what the server views
need of the compute services.

A create body is parsed here (counts, user data, ports, 2.90's host
name, placement, trusted certificates with their policy) into a
:class:`nova_lite.compute_api.servers.BootRequest`; the records, the
quota and the casts are :mod:`nova_lite.compute_api.servers`'.
"""

from typing import Any

import webob
import webob.exc

from nova_lite.api import boot_data
from nova_lite.api import microversion as mv
from nova_lite.api import server_placement
from nova_lite.api import util
from nova_lite.compute_api import scheduler_hints
from nova_lite.compute_api import servers
from nova_lite.compute_api import trusted_certs as trusted_certs_db
from nova_lite.objects import service as service_obj

TRUSTED_CERTS_KEY = trusted_certs_db.KEY


def host_statuses(
    req: webob.Request, rows: list[dict[str, Any]]
) -> dict[str, str]:
    """host -> UP/DOWN/MAINTENANCE/UNKNOWN (only when it is shown)."""
    hosts = {row['host'] for row in rows if row['host']}
    if not hosts or not (
        util.context(req).is_admin
        and util.version(req).at_least(mv.HOST_STATUS)
    ):
        return {}
    only = next(iter(hosts)) if len(hosts) == 1 else None
    down_time = util.conf(req).service_down_time
    statuses = {}
    for host, service in servers.compute_services(
        util.context(req), only
    ).items():
        if not service_obj.is_up(service, down_time):
            statuses[host] = 'DOWN'
        elif service['disabled']:
            statuses[host] = 'MAINTENANCE'
        else:
            statuses[host] = 'UP'
    return statuses


def _counts(spec: dict[str, Any]) -> tuple[int, int]:
    low = util.bounded_int(spec.get('min_count', 1), 'min_count', 1)
    high = util.bounded_int(spec.get('max_count', low), 'max_count', 1)
    if low > high:
        raise webob.exc.HTTPBadRequest(
            explanation='min_count must be <= max_count.'
        )
    return low, high


def trusted_certs(
    req: webob.Request, spec: dict[str, Any], action: str
) -> list[str] | None:
    """The certificate ids a create or rebuild asks for (None when
    none); asking for some needs ``servers:<action>:trusted_certs``."""
    certs = spec.get(TRUSTED_CERTS_KEY)
    if certs:
        util.authorize(
            req,
            f'os_compute_api:servers:{action}:trusted_certs',
            {'project_id': util.context(req).project_id},
        )
    return certs or None


def _requested_hostname(
    req: webob.Request, spec: dict[str, Any], max_count: int
) -> str | None:
    """The ``hostname`` a create asks for (2.90; None before, or when
    not given); one host name for up to ``max_count`` (above 1) servers
    is a 400, as upstream."""
    hostname = (
        spec.get('hostname')
        if util.version(req).at_least(mv.SERVER_HOSTNAME)
        else None
    )
    if hostname and max_count > 1:
        raise webob.exc.HTTPBadRequest(
            explanation='Unable to allocate a single hostname to multiple '
            'instances'
        )
    return hostname


def boot_request(
    req: webob.Request, body: dict[str, Any]
) -> servers.BootRequest:
    """The create request of ``body`` (validated by its schema)."""
    spec = body['server']
    servers.check_security_groups(
        tuple(
            group['name']
            for group in spec.get('security_groups', [])
            if group.get('name') is not None
        )
    )
    where = server_placement.placement(req, body)
    ports = boot_data.ports(spec)
    user_data = boot_data.user_data(spec.get('user_data'))
    low, high = _counts(spec)
    return servers.BootRequest(
        name=spec['name'],
        flavor_ref=spec['flavorRef'],
        image_ref=spec.get('imageRef'),
        min_count=low,
        max_count=high,
        description=spec.get('description'),
        hostname=_requested_hostname(req, spec, high),
        key_name=spec.get('key_name'),
        user_data=user_data,
        config_drive=spec.get('config_drive'),
        admin_pass=spec.get('adminPass'),
        access_ip_v4=spec.get('accessIPv4'),
        access_ip_v6=spec.get('accessIPv6'),
        metadata=spec.get('metadata', {}),
        tags=tuple(spec.get('tags') or ()),
        ports=tuple(ports),
        scheduler_hints=scheduler_hints.from_request(body),
        trusted_certs=trusted_certs(req, spec, 'create'),
        availability_zone=where.availability_zone,
        placement_metadata=where.system_metadata,
        group_id=None if where.group is None else where.group['id'],
    )


def create(req: webob.Request, body: dict[str, Any]) -> servers.Created:
    return util.deps(req).compute_api.create(
        util.context(req), boot_request(req, body)
    )


def delete(req: webob.Request, inst: dict[str, Any]) -> None:
    util.deps(req).compute_api.delete(util.context(req), inst)
