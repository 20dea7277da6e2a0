"""os-instance_usage_audit_log (upstream's path, with underscores):
index and show (administrators).

Upstream's compute hosts write a task log per audit period when
``instance_usage_audit`` is on; nova_lite's agents run no usage audit,
so every compute host is one that has not run in the period, with
upstream's body and counts.
"""

import datetime
from typing import Any

from oslo_utils import timeutils
import webob
import webob.exc

from nova_lite.api import util
from nova_lite.db import services as service_db
from nova_lite.objects import service as service_obj

POLICY = 'os_compute_api:os-instance-usage-audit-log:%s'


def last_completed_month(
    before: datetime.datetime,
) -> tuple[datetime.datetime, datetime.datetime]:
    """Upstream's audit period (``month``, the default): the last whole
    month that ended at or before ``before``."""
    end = datetime.datetime(before.year, before.month, 1)
    if end >= before:
        end = _month_before(end)
    return _month_before(end), end


def _month_before(day: datetime.datetime) -> datetime.datetime:
    if day.month == 1:
        return day.replace(year=day.year - 1, month=12)
    return day.replace(month=day.month - 1)


def _log(req: webob.Request, before: datetime.datetime) -> dict[str, Any]:
    begin, end = last_completed_month(before)
    hosts = sorted(
        {
            row['host']
            for row in service_db.service_get_all(
                util.context(req), binary=service_obj.COMPUTE_BINARY
            )
        }
    )
    done = 'ALL' if not hosts else f'0 of {len(hosts)}'
    return {
        'period_beginning': str(begin),
        'period_ending': str(end),
        'num_hosts': len(hosts),
        'num_hosts_done': 0,
        'num_hosts_running': 0,
        'num_hosts_not_run': len(hosts),
        'hosts_not_run': hosts,
        'total_instances': 0,
        'total_errors': 0,
        'overall_status': f'{done} hosts done. 0 errors.',
        'log': {},
    }


def _timestamp(text: str) -> datetime.datetime:
    """``%Y-%m-%d %H:%M:%S[.%f]`` (400 otherwise, upstream's message)."""
    pattern = '%Y-%m-%d %H:%M:%S.%f' if '.' in text else '%Y-%m-%d %H:%M:%S'
    try:
        return datetime.datetime.strptime(text, pattern)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid timestamp for date {text}'
        ) from None


def list_audit_logs(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'list')
    return util.json_response(
        {'instance_usage_audit_logs': _log(req, timeutils.utcnow())}
    )


def show_audit_log(req: webob.Request) -> webob.Response:
    util.authorize(req, POLICY % 'show')
    before = _timestamp(req.urlvars['before_timestamp'])
    return util.json_response({'instance_usage_audit_log': _log(req, before)})
