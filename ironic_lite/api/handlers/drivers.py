"""Drivers: the hardware types the alive conductors load.

Read from the conductors table (one query): a driver is listed when at
least one alive conductor loads it, with those conductors as ``hosts``.
All are ``dynamic`` (hardware types): classic drivers do not exist.
"""

from typing import Any

import webob
import webob.exc

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.db import conductors as db_conductors


def _hosts_by_driver(req: webob.Request) -> dict[str, list[str]]:
    alive = db_conductors.list_alive(util.context(req),
                                     util.deps(req).heartbeat_timeout)
    drivers: dict[str, list[str]] = {}
    for conductor in alive:
        for name in conductor.get('hardware_types') or ():
            drivers.setdefault(name, []).append(conductor['hostname'])
    return drivers


def _driver(req: webob.Request, name: str,
            hosts: list[str]) -> dict[str, Any]:
    base = util.base_url(req)
    body: dict[str, Any] = {
        'name': name,
        'hosts': sorted(hosts),
        'links': util.links_at(base, 'drivers', name),
    }
    if util.version(req).at_least(mv.STATES_LINK):
        body['properties'] = util.links_at(base, 'drivers', name,
                                           '/properties')
    if util.version(req).at_least(mv.DRIVER_TYPE):
        body['type'] = 'dynamic'
    return body


def _check_type(req: webob.Request) -> bool:
    """False when ``?type=classic`` (no classic drivers exist)."""
    kind = req.GET.get('type')
    if kind is None:
        return True
    if kind not in ('classic', 'dynamic'):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid driver type {kind!r}: use classic or '
            'dynamic.')
    return kind == 'dynamic'


def list_drivers(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:driver:get')
    wanted = _check_type(req)
    drivers = _hosts_by_driver(req) if wanted else {}
    return util.json_response({'drivers': [
        _driver(req, name, hosts) for name, hosts in sorted(drivers.items())
    ]})


def show_properties(req: webob.Request) -> webob.Response:
    """``GET /v1/drivers/{driver_name}/properties``: what the driver's
    default interfaces read from ``driver_info`` (asked of a conductor
    that loads it)."""
    util.authorize(req, 'baremetal:driver:get_properties')
    name = req.urlvars['driver_name']
    if not _hosts_by_driver(req).get(name):
        raise webob.exc.HTTPNotFound(
            explanation=f'Could not find the following driver(s) or '
            f'hardware type(s): {name}.')
    return util.json_response(util.deps(req).conductor.get_driver_properties(
        util.context(req), name))


def show_driver(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:driver:get')
    name = req.urlvars['driver_name']
    hosts = _hosts_by_driver(req).get(name)
    if not hosts:
        raise webob.exc.HTTPNotFound(
            explanation=f'Could not find the following driver(s) or '
            f'hardware type(s): {name}.')
    return util.json_response(_driver(req, name, hosts))
