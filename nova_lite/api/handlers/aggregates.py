"""os-aggregates: host aggregates (administrators), as upstream.

An aggregate groups compute hosts; its ``availability_zone`` metadata
puts them in that zone. Create answers the aggregate without hosts and
metadata; every other call the whole aggregate (``uuid`` from 2.41).
Status codes of the domain refusals follow upstream, which differ by
call: a refused zone change is a 400 on update and set_metadata and a
409 on add_host and remove_host; deleting an aggregate that still has
hosts is a 400.
"""

from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.schemas import aggregates as schema
from nova_lite.compute_api import aggregates as aggregate_api
from nova_lite.db import aggregates as db
from nova_lite.policies.aggregates import AGGREGATES as POLICY

_TIMES = ('created_at', 'updated_at', 'deleted_at')


def _view(req: webob.Request, agg: dict[str, Any]) -> dict[str, Any]:
    body = {
        key: agg[key]
        for key in ('id', 'name', 'availability_zone', 'hosts', 'metadata')
    }
    body.update({key: util.microsecond_time(agg[key]) for key in _TIMES})
    body['deleted'] = bool(agg['deleted'])
    if util.version(req).at_least(mv.AGGREGATE_UUID):
        body['uuid'] = agg['uuid']
    return body


def _respond(req: webob.Request, agg: dict[str, Any]) -> webob.Response:
    return util.json_response({'aggregate': _view(req, agg)})


def aggregate_id(req: webob.Request) -> int:
    """The aggregate id in the URL: a 400 unless an integer (upstream's
    ``validate_integer``), a 404 for one no row can have."""
    text = req.urlvars['aggregate_id']
    agg_id = util.bounded_int(text, 'id', -util.MAX_INT - 1, 2**63)
    if not 0 < agg_id <= util.MAX_INT:
        raise exception.AggregateNotFound(aggregate_id=text)
    return agg_id


def list_aggregates(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'index', {})
    return util.json_response(
        {
            'aggregates': [
                _view(req, agg) for agg in db.get_all(util.context(req))
            ]
        }
    )


def create_aggregate(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'create', {})
    spec = util.read_body(req, schema.create)['aggregate']
    zone = spec.get('availability_zone')
    agg = aggregate_api.create(
        util.context(req), spec['name'].strip(), zone.strip() if zone else None
    )
    body = _view(req, agg)
    del body['hosts'], body['metadata']
    return util.json_response({'aggregate': body})


def show_aggregate(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'show', {})
    return _respond(req, db.get(util.context(req), aggregate_id(req)))


def update_aggregate(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'update', {})
    values = dict(util.read_body(req, schema.update)['aggregate'])
    if 'name' in values:
        values['name'] = values['name'].strip()
    return _respond(
        req, aggregate_api.update(util.context(req), aggregate_id(req), values)
    )


def delete_aggregate(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'delete', {})
    aggregate_api.delete(util.context(req), aggregate_id(req))
    return webob.Response(status=200)


def _add_host(req: webob.Request, agg_id: int, spec: Any) -> Any:
    try:
        return aggregate_api.add_host(util.context(req), agg_id, spec['host'])
    except exception.InvalidAggregateAction as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())


def _remove_host(req: webob.Request, agg_id: int, spec: Any) -> Any:
    host = spec['host']
    try:
        return aggregate_api.remove_host(util.context(req), agg_id, host)
    except (
        exception.AggregateNotFound,
        exception.AggregateHostNotFound,
        exception.ComputeHostNotFound,
    ):
        raise webob.exc.HTTPNotFound(
            explanation=f'Cannot remove host {host} in aggregate '
            f'{req.urlvars["aggregate_id"]}'
        )
    except exception.InvalidAggregateAction as exc:
        raise webob.exc.HTTPConflict(explanation=exc.format_message())


def _set_metadata(req: webob.Request, agg_id: int, spec: Any) -> Any:
    return aggregate_api.set_metadata(
        util.context(req), agg_id, spec['metadata']
    )


_ACTIONS = {
    'add_host': _add_host,
    'remove_host': _remove_host,
    'set_metadata': _set_metadata,
}


def aggregate_action(req: webob.Request) -> webob.Response:
    body = util.read_json(req)
    if not isinstance(body, dict) or len(body) != 1:
        raise webob.exc.HTTPBadRequest(
            explanation='The body must be an object with one action.'
        )
    name = next(iter(body))
    if name not in _ACTIONS:
        raise webob.exc.HTTPBadRequest(
            explanation=f'There is no such action: {name}'
        )
    util.authorize(req, POLICY % name, {})
    util.validate(schema.ACTIONS[name], body)
    return _respond(req, _ACTIONS[name](req, aggregate_id(req), body[name]))
