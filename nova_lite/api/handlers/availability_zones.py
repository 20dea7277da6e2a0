"""os-availability-zone: nova_lite has no host aggregates, so every
compute host is in the zone ``nova`` and every other service in
``internal`` (upstream's default names). A zone is available while one
of its services is enabled.

``GET /os-availability-zone`` lists the zones compute hosts are in
(``internal`` hidden, as upstream); ``/detail`` (administrators) adds
``internal`` and, per zone, each host's services: ``available`` (up),
``active`` (enabled) and ``updated_at``.
"""

from typing import Any

from oslo_config import cfg
import webob

from nova_lite.api import util
from nova_lite.db import services as service_db
from nova_lite.objects import service as service_obj

POLICY = 'os_compute_api:os-availability-zone:%s'
COMPUTE_ZONE, INTERNAL_ZONE = 'nova', 'internal'


def zone_of(service: dict[str, Any]) -> str:
    return (COMPUTE_ZONE if service['binary'] == service_obj.COMPUTE_BINARY
            else INTERNAL_ZONE)


def _zones(services: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(available, not available) zones, sorted."""
    available = {zone_of(s) for s in services if not s['disabled']}
    unavailable = {zone_of(s) for s in services} - available
    return sorted(available), sorted(unavailable)


@util.translate_errors
def list_zones(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'list', {})
    available, unavailable = _zones(
        service_db.service_get_all(util.context(req)))
    info = [{'zoneName': zone, 'zoneState': {'available': state},
             'hosts': None}
            for zones, state in ((available, True), (unavailable, False))
            for zone in zones if zone != INTERNAL_ZONE]
    return util.json_response({'availabilityZoneInfo': info})


@util.translate_errors
def list_zones_detail(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'detail', {})
    services = service_db.service_get_all(util.context(req))
    available, unavailable = _zones(services)
    down_time = cfg.CONF.service_down_time
    info: list[dict[str, Any]] = []
    for zone in available:
        hosts: dict[str, dict[str, Any]] = {}
        for service in services:
            if service['disabled'] or zone_of(service) != zone:
                continue
            hosts.setdefault(service['host'], {})[service['binary']] = {
                'available': service_obj.is_up(service, down_time),
                'active': not service['disabled'],
                'updated_at': util.microsecond_time(
                    service['updated_at'] or service['created_at'])}
        info.append({'zoneName': zone, 'zoneState': {'available': True},
                     'hosts': hosts})
    info += [{'zoneName': zone, 'zoneState': {'available': False},
              'hosts': None} for zone in unavailable]
    return util.json_response({'availabilityZoneInfo': info})
