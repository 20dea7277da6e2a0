"""The domain rules of host aggregates (upstream's ``AggregateAPI``).

A host is in at most one availability zone: an aggregate's zone cannot
be set or changed to one that conflicts with another aggregate of one
of its hosts, nor changed while its hosts hold instances; a host cannot
join or leave an aggregate when that would move its instances to
another zone. Nothing here knows HTTP; the API picks each exception's
status as upstream does.
"""

from typing import Any

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.compute_api import moves as compute_api
from nova_lite.db import aggregates as db
from nova_lite.db import instances as instance_db

AZ_KEY = db.AZ_KEY
Row = dict[str, Any]


def create(ctx: RequestContext, name: str, zone: str | None) -> Row:
    """:raises AggregateNameExists:"""
    return db.create(ctx, name, {AZ_KEY: zone} if zone else {})


def _check_zone(
    ctx: RequestContext,
    metadata: Row,
    agg: Row,
    hosts: list[str],
    error: type[exception.InvalidAggregateAction],
    check_instances: bool,
) -> None:
    """Upstream's ``is_safe_to_update_az``: raises ``error``."""
    if AZ_KEY not in metadata:
        return
    zone = metadata[AZ_KEY]
    if not zone:
        raise error(
            aggregate_id=agg['id'],
            reason='Aggregate %s does not '
            'support empty named availability zone' % agg['name'],
        )
    conflicting = sorted(
        {
            other_zone
            for other_id, other_zone in db.zones_of_hosts(ctx, hosts)
            if other_id != agg['id'] and other_zone != zone
        }
    )
    if conflicting:
        raise error(
            aggregate_id=agg['id'],
            reason='One or more hosts '
            'already in availability zone(s) %s' % conflicting,
        )
    if (
        check_instances
        and agg['availability_zone'] != zone
        and instance_db.count_on_hosts(ctx, hosts)
    ):
        raise error(
            aggregate_id=agg['id'],
            reason='One or more hosts contain instances in this zone',
        )


def update(ctx: RequestContext, agg_id: int, values: Row) -> Row:
    """Rename and/or change the zone. :raises AggregateNotFound,
    AggregateNameExists, InvalidAggregateActionUpdate:"""
    values = dict(values)
    agg = db.get(ctx, agg_id)
    if 'name' in values:
        db.rename(ctx, agg_id, values.pop('name'))
    _check_zone(
        ctx,
        values,
        agg,
        agg['hosts'],
        exception.InvalidAggregateActionUpdate,
        True,
    )
    if values:
        db.update_metadata(ctx, agg_id, values)
    return db.get(ctx, agg_id)


def set_metadata(ctx: RequestContext, agg_id: int, metadata: Row) -> Row:
    """:raises AggregateNotFound, InvalidAggregateActionUpdateMeta:"""
    agg = db.get(ctx, agg_id)
    _check_zone(
        ctx,
        metadata,
        agg,
        agg['hosts'],
        exception.InvalidAggregateActionUpdateMeta,
        True,
    )
    db.update_metadata(ctx, agg_id, metadata)
    return db.get(ctx, agg_id)


def delete(ctx: RequestContext, agg_id: int) -> None:
    """:raises AggregateNotFound, InvalidAggregateActionDelete:"""
    if db.get(ctx, agg_id)['hosts']:
        raise exception.InvalidAggregateActionDelete(
            aggregate_id=agg_id, reason='Host aggregate is not empty'
        )
    db.destroy(ctx, agg_id)


def _zone_of_host(
    ctx: RequestContext, host: str, leaving: int | None = None
) -> str | None:
    """The zone the host's aggregates give it (``leaving`` left out)."""
    return next(
        (
            zone
            for agg_id, zone in db.zones_of_hosts(ctx, [host])
            if agg_id != leaving
        ),
        None,
    )


def _check_instances_stay(
    ctx: RequestContext,
    agg: Row,
    host: str,
    old: str | None,
    new: str | None,
    error: type[exception.InvalidAggregateAction],
) -> None:
    count = instance_db.count_on_hosts(ctx, [host])
    if count and old != new:
        raise error(
            aggregate_id=agg['id'],
            reason=(
                'The host cannot be %s the aggregate as the availability zone '
                "of the host would change from '%s' to '%s' but the host "
                'already has %d instance(s). Changing the AZ of an existing '
                'instance is not supported by this action. Move the instances '
                'away from this host then try again. If you need to move the '
                'instances between AZs then you can use shelve_offload and '
                'unshelve to achieve this.'
                % (
                    'added to'
                    if error is exception.InvalidAggregateActionAdd
                    else 'removed from',
                    old,
                    new,
                    count,
                )
            ),
        )


def _compute_host(ctx: RequestContext, host: str) -> None:
    if compute_api.compute_service(ctx, host) is None:
        raise exception.ComputeHostNotFound(host=host)


def add_host(ctx: RequestContext, agg_id: int, host: str) -> Row:
    """:raises ComputeHostNotFound, AggregateNotFound,
    AggregateHostExists, InvalidAggregateActionAdd:"""
    _compute_host(ctx, host)
    agg = db.get(ctx, agg_id)
    error = exception.InvalidAggregateActionAdd
    _check_zone(ctx, agg['metadata'], agg, [host], error, False)
    if agg['availability_zone']:
        _check_instances_stay(
            ctx,
            agg,
            host,
            _zone_of_host(ctx, host),
            agg['availability_zone'],
            error,
        )
    db.add_host(ctx, agg_id, host)
    return db.get(ctx, agg_id)


def remove_host(ctx: RequestContext, agg_id: int, host: str) -> Row:
    """:raises ComputeHostNotFound, AggregateNotFound,
    AggregateHostNotFound, InvalidAggregateActionDelete:"""
    _compute_host(ctx, host)
    agg = db.get(ctx, agg_id)
    if agg['availability_zone'] and host in agg['hosts']:
        _check_instances_stay(
            ctx,
            agg,
            host,
            agg['availability_zone'],
            _zone_of_host(ctx, host, leaving=agg_id),
            exception.InvalidAggregateActionDelete,
        )
    db.remove_host(ctx, agg_id, host)
    return db.get(ctx, agg_id)
