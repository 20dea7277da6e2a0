"""The query of a server list: filters and sort order, as upstream.

``?flavor=`` names a flavor by its flavorid and matches the servers
built or resized to it (upstream's ``instance_type_id``); a flavor that
does not exist matches nothing. ``?ip=`` and ``?ip6=`` are regular
expressions on a server's addresses: nova_lite has no networking, so a
server has no address and they match no server. ``sort_key`` takes
upstream's keys: those nova_lite has no column for are ignored (as
upstream ignores its own ignore list, a 400 from 2.75), others are a
400; sorting by ``host`` or ``node`` is for administrators (else 403).
``?hostname=`` is a regular expression on the host names (2.90 for
everyone, administrators' before).
From 2.75 a parameter upstream's list does not know is a 400. The
filters on a server's own attributes (2.83 for everyone, before for
administrators) are in :mod:`nova_lite.api.server_filters`.
"""

import re
from typing import Any

from oslo_utils import strutils
import webob
import webob.exc

from lite_common import uuids
from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import server_filters
from nova_lite.api import util
from nova_lite.api.views import servers as views
from nova_lite.db import flavors as flavor_db
from nova_lite.db import instances as db

POLICY = 'os_compute_api:servers:%s'

#: The tag filters of a server list (2.26), comma-separated lists.
TAG_FILTERS = ('tags', 'tags-any', 'not-tags', 'not-tags-any')

#: Upstream's sort keys (VALID_SORT_KEYS) that name a column here.
SORT_COLUMNS = frozenset(
    (
        'access_ip_v4',
        'access_ip_v6',
        'availability_zone',
        'config_drive',
        'created_at',
        'display_description',
        'display_name',
        'host',
        'hostname',
        'image_ref',
        'instance_type_id',
        'key_name',
        'launched_at',
        'locked_by',
        'node',
        'power_state',
        'project_id',
        'task_state',
        'terminated_at',
        'updated_at',
        'user_id',
        'uuid',
        'vm_state',
    )
)
#: Upstream's other valid keys: accepted and ignored (upstream's
#: SERVER_LIST_IGNORE_SORT_KEY, and the columns nova_lite lacks).
SORT_IGNORED = frozenset(
    (
        'auto_disk_config',
        'kernel_id',
        'launch_index',
        'progress',
        'ramdisk_id',
        'root_device_name',
        'architecture',
        'cell_name',
        'cleaned',
        'default_ephemeral_device',
        'default_swap_device',
        'deleted',
        'deleted_at',
        'disable_terminate',
        'ephemeral_gb',
        'ephemeral_key_uuid',
        'id',
        'key_data',
        'launched_on',
        'locked',
        'memory_mb',
        'os_type',
        'reservation_id',
        'root_gb',
        'shutdown_terminate',
        'user_data',
        'vcpus',
        'vm_mode',
    )
)


#: Upstream's ignore list (SERVER_LIST_IGNORE_SORT_KEY_V273): from 2.75
#: these keys are a 400 rather than ignored.
SORT_REFUSED_V275 = frozenset(
    (
        'architecture',
        'cell_name',
        'cleaned',
        'default_ephemeral_device',
        'default_swap_device',
        'deleted',
        'deleted_at',
        'disable_terminate',
        'ephemeral_gb',
        'ephemeral_key_uuid',
        'id',
        'key_data',
        'launched_on',
        'memory_mb',
        'os_type',
        'reservation_id',
        'root_gb',
        'shutdown_terminate',
        'user_data',
        'vcpus',
        'vm_mode',
    )
)

#: Every query parameter of a server list at 2.75 (upstream's
#: index_query_v275); others are a 400 from then on.
LIST_QUERY = frozenset(
    (
        'user_id',
        'project_id',
        'tenant_id',
        'launch_index',
        'image_ref',
        'image',
        'kernel_id',
        'ramdisk_id',
        'hostname',
        'key_name',
        'power_state',
        'vm_state',
        'task_state',
        'host',
        'node',
        'flavor',
        'reservation_id',
        'launched_at',
        'terminated_at',
        'availability_zone',
        'name',
        'display_name',
        'description',
        'display_description',
        'locked_by',
        'uuid',
        'root_device_name',
        'config_drive',
        'access_ip_v4',
        'access_ip_v6',
        'auto_disk_config',
        'progress',
        'sort_key',
        'sort_dir',
        'all_tenants',
        'soft_deleted',
        'deleted',
        'status',
        'changes-since',
        'ip',
        'ip6',
        'created_at',
        'block_device_mapping',
        'services',
        'metadata',
        'system_metadata',
        'info_cache',
        'security_groups',
        'pci_devices',
        'limit',
        'marker',
        'changes-before',
        'locked',
    )
    + TAG_FILTERS
)


class NoMatch(Exception):
    """The filters can match no server (e.g. an unknown flavor)."""


def regex(pattern: str, name: str) -> str:
    """A filter that is a regular expression (searched, as upstream);
    one that does not compile is a 400."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid regular expression in {name}: {exc}.'
        ) from None
    return pattern


def _sort_keys(req: webob.Request) -> tuple[frozenset[str], frozenset[str]]:
    """(the keys sorted on, the keys accepted and ignored) at the
    request's version: ``locked`` is a sort key from 2.73."""
    version = util.version(req)
    if version.at_least(mv.STRICT_QUERY):
        return (
            SORT_COLUMNS | {'locked'},
            SORT_IGNORED - {'locked'} - SORT_REFUSED_V275,
        )
    if version.at_least(mv.LOCKED_REASON):
        return SORT_COLUMNS | {'locked'}, SORT_IGNORED - {'locked'}
    return SORT_COLUMNS, SORT_IGNORED


def sort(req: webob.Request) -> list[tuple[str, str]]:
    """(column, direction) pairs from ``sort_key`` / ``sort_dir``."""
    columns, ignored = _sort_keys(req)
    keys: list[str] = []
    dirs: list[str | None] = [d.strip() for d in req.GET.getall('sort_dir')]
    for index, key in enumerate(k.strip() for k in req.GET.getall('sort_key')):
        if key not in columns | ignored:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Invalid input for query parameters sort_key. '
                f"Value: {key}. '{key}' is not one of the valid sort keys"
            )
        if key in ignored:
            if index < len(dirs):  # its direction goes with it
                dirs[index] = None
            continue
        if key in ('host', 'node') and not util.context(req).is_admin:
            raise webob.exc.HTTPForbidden(
                explanation=f'Only administrators can sort servers by {key}'
            )
        keys.append(key)
    try:
        return db.sort_order(keys, [d for d in dirs if d is not None])
    except exception.Invalid as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc)) from None


def _project(req: webob.Request, filters: dict[str, Any]) -> None:
    all_tenants = req.GET.get('all_tenants')
    if all_tenants is not None and all_tenants.lower() not in ('0', 'false'):
        util.authorize(req, POLICY % 'index:get_all_tenants')
        project = req.GET.get('project_id') or req.GET.get('tenant_id')
        if project:
            filters['project_id'] = project
    else:
        filters['project_id'] = util.context(req).project_id


def _deleted(req: webob.Request, filters: dict[str, Any]) -> None:
    if util.version(req).at_least(mv.CHANGES_BEFORE):
        since, before = util.changes_window(req)
    else:
        since, before = util.changes_since(req), None
    if since is not None or before is not None:
        # As upstream: what changed in that window, deleted servers
        # included.
        filters['changes_since'] = since
        filters['changes_before'] = before
        filters['deleted'] = True
    elif util.context(req).is_admin and strutils.bool_from_string(
        req.GET.get('deleted'), default=False
    ):
        filters['deleted_only'] = True
    else:
        filters['hide_soft_deleted'] = True


def _status(req: webob.Request, filters: dict[str, Any]) -> None:
    """``?status=`` (repeatable): the servers in any of them; none
    known is a 400 from 2.38, before it an empty list (as upstream)."""
    if 'status' not in req.GET:
        return
    vm_states, task_states = views.states_for(req.GET.getall('status'))
    if not vm_states and util.version(req).at_least(mv.STRICT_STATUS_FILTER):
        raise webob.exc.HTTPBadRequest(explanation='Invalid status value')
    filters['vm_state'] = vm_states or ['__none__']
    if task_states and None not in task_states:
        filters['task_state'] = task_states


def _flavor(req: webob.Request, filters: dict[str, Any]) -> None:
    """``?flavor=<flavorid>`` (or a link to it); NoMatch when that
    flavor does not exist (upstream answers an empty list)."""
    ref = req.GET.get('flavor')
    if not ref:
        return
    try:
        flavor = flavor_db.flavor_get(
            util.context(req), ref.rstrip('/').rsplit('/', 1)[-1]
        )
    except exception.FlavorNotFound:
        raise NoMatch() from None
    filters['instance_type_id'] = flavor['id']


def _locked(req: webob.Request, filters: dict[str, Any]) -> None:
    """``?locked=`` (2.73): a boolean, else 400 (upstream's message)."""
    value = req.GET.get('locked')
    if value is None or not util.version(req).at_least(mv.LOCKED_REASON):
        return
    try:
        filters['locked'] = strutils.bool_from_string(value, strict=True)
    except ValueError as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc)) from None


def _hostname(req: webob.Request, filters: dict[str, Any]) -> None:
    """``?hostname=``, a regular expression: a filter of whoever
    ``allow_all_filters`` allows, everyone's from 2.90 (others' is
    ignored before, as upstream)."""
    value = req.GET.get('hostname')
    if value and server_filters.allowed(req, mv.SERVER_HOSTNAME):
        filters['hostname'] = regex(value, 'hostname')


def _addresses(req: webob.Request) -> None:
    """``?ip=`` / ``?ip6=``: servers here have no address, so a valid
    expression matches none of them."""
    for name in ('ip', 'ip6'):
        if req.GET.get(name):
            regex(req.GET[name], name)
            raise NoMatch()


def filters(req: webob.Request) -> dict[str, Any]:
    """The database filters of a server list (NoMatch when nothing can
    match); from 2.75 an unknown parameter is a 400."""
    util.reject_unknown_query(req, LIST_QUERY)
    found: dict[str, Any] = {}
    _project(req, found)
    if req.GET.get('name'):
        found['name'] = regex(req.GET['name'], 'name')
    _deleted(req, found)
    _status(req, found)
    if util.check(req, server_filters.ALL_FILTERS_POLICY):
        for key in ('host', 'node'):
            if req.GET.get(key):
                found[key] = req.GET[key]
    if util.version(req).at_least(mv.SERVER_TAGS):
        for name in TAG_FILTERS:
            if req.GET.get(name):
                found[name] = [t for t in req.GET[name].split(',') if t]
    if req.GET.get('image'):
        found['image_ref'] = uuids.canonical(
            req.GET['image'].rsplit('/', 1)[-1]
        )
    _flavor(req, found)
    _locked(req, found)
    _hostname(req, found)
    server_filters.add(req, found, regex)
    _addresses(req)
    return found
