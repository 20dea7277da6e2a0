"""Drivers: the hardware types the alive conductors load.

Read from the conductors table (one query): a driver is listed when at
least one alive conductor loads it, with those conductors as ``hosts``.
All are ``dynamic`` (hardware types): classic drivers do not exist.
From 1.30 a driver's details (show, and the list with ``?detail=true``)
say which interfaces of each type the conductors load for it and which
one a new node gets, as each conductor recorded them when it registered.
"""

from typing import Any
from typing import cast

import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import listing
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.common import interfaces
from ironic_lite.db import conductors as db_conductors

#: Interface types shown from a later version than 1.30 (upstream's).
_INTERFACE_SINCE = {
    'storage': mv.STORAGE_INTERFACE,
    'rescue': mv.RESCUE,
    'bios': mv.BIOS,
    'firmware': mv.FIRMWARE,
}


class _Driver:
    """A hardware type as the alive conductors load it."""

    def __init__(self) -> None:
        self.hosts: list[str] = []
        #: interface type -> (enabled names in first-seen order, default)
        self.interfaces: dict[str, tuple[list[str], str | None]] = {}

    def add(self, host: str, interfaces: dict[str, Any]) -> None:
        self.hosts.append(host)
        for kind, info in interfaces.items():
            enabled, default = self.interfaces.get(kind, ([], None))
            enabled += [n for n in info.get('enabled', ()) if n not in enabled]
            # The conductors of one deployment agree on the default (the
            # same configuration); the first one seen is shown.
            self.interfaces[kind] = (enabled, default or info.get('default'))


def _drivers(req: webob.Request) -> dict[str, _Driver]:
    alive = db_conductors.list_alive(
        util.context(req),
        util.deps(req).heartbeat_timeout,
        with_interfaces=True,
    )
    drivers: dict[str, _Driver] = {}
    for conductor in alive:
        recorded = conductor.get('hardware_interfaces') or {}
        for name in conductor.get('hardware_types') or ():
            drivers.setdefault(name, _Driver()).add(
                conductor['hostname'], recorded.get(name, {})
            )
    return drivers


def _hosts_by_driver(req: webob.Request) -> dict[str, list[str]]:
    return {name: d.hosts for name, d in _drivers(req).items()}


def _interfaces(req: webob.Request, driver: _Driver) -> dict[str, Any]:
    version = util.version(req)
    body: dict[str, Any] = {}
    for kind in interfaces.INTERFACE_TYPES:
        since = _INTERFACE_SINCE.get(kind)
        if since is not None and version.below(since):
            continue
        enabled, default = driver.interfaces.get(kind, ([], None))
        body[f'default_{kind}_interface'] = default
        body[f'enabled_{kind}_interfaces'] = list(enabled)
    return body


def _driver(
    req: webob.Request, name: str, driver: _Driver, detail: bool = False
) -> dict[str, Any]:
    hosts = driver.hosts
    base = util.base_url(req)
    body: dict[str, Any] = {
        'name': name,
        'hosts': sorted(hosts),
        'links': util.links_at(base, 'drivers', name),
    }
    if util.version(req).at_least(mv.STATES_LINK):
        body['properties'] = util.links_at(
            base, 'drivers', name, '/properties'
        )
    if util.version(req).at_least(mv.DRIVER_TYPE):
        body['type'] = 'dynamic'
        if detail:
            body.update(_interfaces(req, driver))
    return body


def _detail(req: webob.Request) -> bool:
    """``?detail=`` of the list (1.30; 406 before, as upstream)."""
    if 'detail' not in req.GET:
        return False
    if util.version(req).below(mv.DRIVER_TYPE):
        raise webob.exc.HTTPNotAcceptable(
            explanation="The query parameter 'detail' needs API version "
            f'{mv.DRIVER_TYPE} or later; this request uses '
            f'{util.version(req)}.'
        )
    return bool(util.query_bool(req, 'detail'))


def _check_type(req: webob.Request) -> bool:
    """False when ``?type=classic`` (no classic drivers exist); the
    parameter is 1.30's (406 before, as upstream)."""
    kind = req.GET.get('type')
    if kind is None:
        return True
    if util.version(req).below(mv.DRIVER_TYPE):
        raise webob.exc.HTTPNotAcceptable(
            explanation='Request not acceptable. The minimal required API '
            f'version should be {mv.DRIVER_TYPE}'
        )
    if kind not in ('classic', 'dynamic'):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid driver type {kind!r}: use classic or '
            'dynamic.'
        )
    return cast(bool, kind == 'dynamic')


#: Every field a driver may show (what ``?fields=`` may name, 1.77).
ALL_FIELDS = (
    'hosts',
    'links',
    'name',
    *(
        f'{prefix}_{kind}_interface{"s" if prefix == "enabled" else ""}'
        for kind in interfaces.INTERFACE_TYPES
        for prefix in ('default', 'enabled')
    ),
    'properties',
    'type',
)


def _fields(req: webob.Request, detail: bool) -> list[str] | None:
    """``?fields=`` (1.77; 406 before, as upstream); 400 with detail or
    for a name no driver has."""
    if 'fields' not in req.GET:
        return None
    if util.version(req).below(mv.DRIVER_FIELDS):
        raise webob.exc.HTTPNotAcceptable(
            explanation='Request not acceptable.'
        )
    return listing.schema_fields(req, ALL_FIELDS, detail)


def _select(body: dict[str, Any], fields: list[str] | None) -> dict[str, Any]:
    """``body`` with only ``fields`` (and its links, as upstream);
    400 for a field this version or view does not show."""
    if fields is None:
        return body
    missing = [f for f in fields if f not in body]
    if missing:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Field(s) "{", ".join(missing)}" are not valid'
        )
    return {k: v for k, v in body.items() if k in fields or k == 'links'}


def list_drivers(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:driver:get')
    wanted = _check_type(req)
    detail = _detail(req)
    fields = _fields(req, detail)
    drivers = _drivers(req) if wanted else {}
    return util.json_response(
        {
            'drivers': [
                _select(_driver(req, name, driver, detail), fields)
                for name, driver in sorted(drivers.items())
            ]
        }
    )


def require_driver(req: webob.Request, name: str) -> None:
    """404 unless an alive conductor loads hardware type ``name``."""
    if not _hosts_by_driver(req).get(name):
        raise webob.exc.HTTPNotFound(
            explanation=f'Could not find the following driver(s) or '
            f'hardware type(s): {name}.'
        )


def show_properties(req: webob.Request) -> webob.Response:
    """``GET /v1/drivers/{driver_name}/properties``: what the driver's
    default interfaces read from ``driver_info`` (asked of a conductor
    that loads it)."""
    util.authorize(req, 'baremetal:driver:get_properties')
    name = req.urlvars['driver_name']
    require_driver(req, name)
    return util.json_response(
        util.deps(req).conductor.get_driver_properties(util.context(req), name)
    )


def show_driver(req: webob.Request) -> webob.Response:
    util.authorize(req, 'baremetal:driver:get')
    name = req.urlvars['driver_name']
    driver = _drivers(req).get(name)
    if driver is None:
        raise webob.exc.HTTPNotFound(
            explanation=f'Could not find the following driver(s) or '
            f'hardware type(s): {name}.'
        )
    fields = _fields(req, detail=False)
    return util.json_response(
        _select(_driver(req, name, driver, detail=True), fields)
    )


def show_raid_logical_disk_properties(req: webob.Request) -> webob.Response:
    """``GET /v1/drivers/{driver_name}/raid/logical_disk_properties``
    (1.12): the keys a target RAID configuration may use, from the
    hardware type's default RAID interface (404 for ``no-raid``, or an
    unknown driver)."""
    if util.version(req).below(mv.RAID):
        raise webob.exc.HTTPNotAcceptable(
            explanation='The RAID logical disk properties need API version '
            f'{mv.RAID} or later; this request uses {util.version(req)}.'
        )
    util.authorize(req, 'baremetal:driver:get_raid_logical_disk_properties')
    name = req.urlvars['driver_name']
    if not _hosts_by_driver(req).get(name):
        raise webob.exc.HTTPNotFound(
            explanation=f"The driver '{name}' is unknown."
        )
    try:
        properties = util.deps(req).conductor.get_raid_logical_disk_properties(
            util.context(req), name
        )
    except exception.UnsupportedDriverExtension as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return util.json_response(properties)
