"""os-simple-tenant-usage: what each project's servers used over a
period (``start`` / ``end``, default now), as upstream computes it: a
server counts from its launch (or the period's start) to its
termination (or the period's end), in hours, times its vCPUs, RAM and
disk. From 2.40 the list is paged by server (``limit``, ``marker``: an
instance uuid) with ``tenant_usages_links``.
"""

import collections
import datetime
from typing import Any
from typing import cast

from oslo_utils import timeutils
import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.db import usage as db

POLICY = 'os_compute_api:os-simple-tenant-usage:%s'
_FORMATS = (
    '%Y-%m-%dT%H:%M:%S',
    '%Y-%m-%dT%H:%M:%S.%f',
    '%Y-%m-%d %H:%M:%S.%f',
)


def _time(text: str | None) -> datetime.datetime:
    if not text:
        return timeutils.utcnow()
    for fmt in _FORMATS:
        try:
            return datetime.datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise webob.exc.HTTPBadRequest(
        explanation='Invalid input received: Datetime is in invalid format'
    )


def _period(
    req: webob.Request,
) -> tuple[datetime.datetime, datetime.datetime, bool]:
    start, stop = _time(req.GET.get('start')), _time(req.GET.get('end'))
    if not start < stop:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid start time. The start time cannot occur '
            'after the end time.'
        )
    return start, stop, req.GET.get('detailed', '0') == '1'


def _hours(
    row: dict[str, Any], start: datetime.datetime, stop: datetime.datetime
) -> float:
    launched, ended = row['launched_at'], row['terminated_at']
    if launched is None:
        return 0.0
    begin = max(launched, start)
    end = min(stop, ended) if ended is not None else stop
    return cast(float, max((end - begin).total_seconds(), 0.0) / 3600.0)


def _server_usage(
    row: dict[str, Any], start: datetime.datetime, stop: datetime.datetime
) -> dict[str, Any]:
    flavor = row['flavor'] or {}
    ended = row['terminated_at']
    started = row['launched_at']
    now = timeutils.utcnow()
    uptime = ((ended or now) - started).total_seconds() if started else 0
    return {
        'instance_id': row['uuid'],
        'name': row['display_name'],
        'tenant_id': row['project_id'],
        'hours': _hours(row, start, stop),
        'flavor': flavor.get('name', ''),
        'memory_mb': flavor.get('memory_mb', 0),
        'local_gb': (flavor.get('root_gb', 0) + flavor.get('ephemeral_gb', 0)),
        'vcpus': flavor.get('vcpus', 0),
        'started_at': util.microsecond_time(started),
        'ended_at': util.microsecond_time(ended),
        'state': 'terminated' if ended else row['vm_state'],
        'uptime': int(uptime),
    }


def _usages(
    rows: list[dict[str, Any]],
    start: datetime.datetime,
    stop: datetime.datetime,
    detailed: bool,
) -> list[dict[str, Any]]:
    summaries: dict[str, dict[str, Any]] = collections.OrderedDict()
    for row in rows:
        info = _server_usage(row, start, stop)
        summary = summaries.setdefault(
            info['tenant_id'],
            {
                'tenant_id': info['tenant_id'],
                'total_local_gb_usage': 0,
                'total_vcpus_usage': 0,
                'total_memory_mb_usage': 0,
                'total_hours': 0,
                'start': util.microsecond_time(start),
                'stop': util.microsecond_time(stop),
                **({'server_usages': []} if detailed else {}),
            },
        )
        hours = info['hours']
        summary['total_local_gb_usage'] += info['local_gb'] * hours
        summary['total_vcpus_usage'] += info['vcpus'] * hours
        summary['total_memory_mb_usage'] += info['memory_mb'] * hours
        summary['total_hours'] += hours
        if detailed:
            summary['server_usages'].append(info)
    return list(summaries.values())


def _rows(
    req: webob.Request,
    start: datetime.datetime,
    stop: datetime.datetime,
    project: str | None,
) -> tuple[list[dict[str, Any]], int | None]:
    paged = util.version(req).at_least(mv.USAGE_PAGING)
    limit = util.page_limit(req) if paged else None
    try:
        rows = db.instances_in_window(
            util.context(req),
            start,
            stop,
            project,
            limit,
            req.GET.get('marker') if paged else None,
        )
    except exception.MarkerNotFound as exc:
        raise webob.exc.HTTPBadRequest(
            explanation=exc.format_message()
        ) from None
    return rows, limit


def _links(
    req: webob.Request,
    path: str,
    rows: list[dict[str, Any]],
    limit: int | None,
) -> list[dict[str, str]]:
    if limit is None or not rows:
        return []
    return util.next_link(req, path, rows, limit, rows[-1]['uuid'])


def list_usages(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(
        req, ('start', 'end', 'detailed', 'limit', 'marker')
    )
    util.authorize(req, POLICY % 'list')
    start, stop, detailed = _period(req)
    rows, limit = _rows(req, start, stop, None)
    body: dict[str, Any] = {
        'tenant_usages': _usages(rows, start, stop, detailed)
    }
    links = _links(req, 'os-simple-tenant-usage', rows, limit)
    if links:
        body['tenant_usages_links'] = links
    return util.json_response(body)


def show_usage(req: webob.Request) -> webob.Response:
    util.reject_unknown_query(req, ('start', 'end', 'limit', 'marker'))
    project = req.urlvars['tenant_id']
    util.authorize(req, POLICY % 'show', {'project_id': project})
    start, stop, _detailed = _period(req)
    rows, limit = _rows(req, start, stop, project)
    usages = _usages(rows, start, stop, detailed=True)
    body: dict[str, Any] = {'tenant_usage': usages[0] if usages else {}}
    links = _links(req, f'os-simple-tenant-usage/{project}', rows, limit)
    if links:
        body['tenant_usage_links'] = links
    return util.json_response(body)
