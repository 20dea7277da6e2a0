"""Availability zones, from host aggregates (as upstream).

A compute host is in the zone of the aggregate whose
``availability_zone`` metadata it has (at most one zone: the aggregate
API keeps it so), else in ``[DEFAULT]default_availability_zone``.
Services other than nova-compute are shown in
``internal_service_availability_zone``.
"""

from typing import Any
from typing import cast

from oslo_config import cfg

from lite_common.context import RequestContext
from nova_lite.db import aggregates as aggregate_db
from nova_lite.db import services as service_db
from nova_lite.objects.service import COMPUTE_BINARY


def host_zones(ctx: RequestContext) -> dict[str, str]:
    """host -> zone of the hosts in an aggregate with a zone."""
    return aggregate_db.host_zones(ctx)


def host_zone(
    conf: cfg.ConfigOpts, zones: dict[str, str], host: str | None
) -> str:
    return cast(str, zones.get(host or '', conf.default_availability_zone))


def zone_of(
    conf: cfg.ConfigOpts, service: dict[str, Any], zones: dict[str, str]
) -> str:
    """The zone a service is shown in."""
    if service['binary'] != COMPUTE_BINARY:
        return str(conf.internal_service_availability_zone)
    return host_zone(conf, zones, service['host'])


def available_zones(ctx: RequestContext, conf: cfg.ConfigOpts) -> set[str]:
    """The zones of the enabled compute services (where a server may
    be asked for)."""
    zones = host_zones(ctx)
    return {
        host_zone(conf, zones, s['host'])
        for s in service_db.service_get_all(ctx, binary=COMPUTE_BINARY)
        if not s['disabled']
    }
