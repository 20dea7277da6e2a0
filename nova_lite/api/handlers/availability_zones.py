"""os-availability-zone: the zones compute hosts are in, from host
aggregates' ``availability_zone`` metadata (hosts in none are in
``[DEFAULT]default_availability_zone``, ``nova``); every other service
is in ``internal_service_availability_zone`` (``internal``). A zone is
available while one of its services is enabled.

``GET /os-availability-zone`` lists the zones compute hosts are in
(the internal zone hidden, as upstream); ``/detail`` (administrators)
adds it and, per zone, each host's services: ``available`` (up),
``active`` (enabled) and ``updated_at``.
"""

from typing import Any

import webob

from nova_lite.api import util
from nova_lite.compute_api import availability_zones as zones_api
from nova_lite.db import services as service_db
from nova_lite.objects import service as service_obj

POLICY = 'os_compute_api:os-availability-zone:%s'


def _zoned(req: webob.Request) -> list[tuple[str, dict[str, Any]]]:
    """(zone, service) of every service."""
    ctx = util.context(req)
    zones = zones_api.host_zones(ctx)
    return [
        (zones_api.zone_of(util.conf(req), s, zones), s)
        for s in service_db.service_get_all(ctx)
    ]


def _zones(
    zoned: list[tuple[str, dict[str, Any]]],
) -> tuple[list[str], list[str]]:
    """(available, not available) zones, sorted."""
    available = {zone for zone, s in zoned if not s['disabled']}
    unavailable = {zone for zone, _ in zoned} - available
    return sorted(available), sorted(unavailable)


def list_zones(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'list', {})
    available, unavailable = _zones(_zoned(req))
    internal = util.conf(req).internal_service_availability_zone
    info = [
        {'zoneName': zone, 'zoneState': {'available': state}, 'hosts': None}
        for zones, state in ((available, True), (unavailable, False))
        for zone in zones
        if zone != internal
    ]
    return util.json_response({'availabilityZoneInfo': info})


def _hosts(
    zoned: list[tuple[str, dict[str, Any]]], zone: str, down_time: int
) -> dict[str, dict[str, Any]]:
    hosts: dict[str, dict[str, Any]] = {}
    for service_zone, service in zoned:
        if service['disabled'] or service_zone != zone:
            continue
        hosts.setdefault(service['host'], {})[service['binary']] = {
            'available': service_obj.is_up(service, down_time),
            'active': not service['disabled'],
            'updated_at': util.microsecond_time(
                service['updated_at'] or service['created_at']
            ),
        }
    return hosts


def list_zones_detail(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'detail', {})
    zoned = _zoned(req)
    available, unavailable = _zones(zoned)
    info: list[dict[str, Any]] = [
        {
            'zoneName': zone,
            'zoneState': {'available': True},
            'hosts': _hosts(zoned, zone, util.conf(req).service_down_time),
        }
        for zone in available
    ]
    info += [
        {'zoneName': zone, 'zoneState': {'available': False}, 'hosts': None}
        for zone in unavailable
    ]
    return util.json_response({'availabilityZoneInfo': info})
