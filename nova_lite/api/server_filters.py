"""The server list filters about a server's own attributes (upstream's
``availability_zone``, ``config_drive``, ``key_name``, ``created_at``,
``launched_at``, ``terminated_at``, ``power_state``, ``task_state``,
``vm_state``, ``progress`` and ``user_id``), as upstream matches them:

* ``user_id`` exactly; ``vm_state`` and ``task_state`` exactly, without
  regard to case (the states are stored in lower case; upstream's
  MariaDB compares without case too); ``status`` wins over ``vm_state``;
* the others are regular expressions searched in the value (a
  ``power_state`` as its number, the times as ``YYYY-MM-DD HH:MM:SS``);
  a time given as an ISO 8601 timestamp (``2020-05-01T10:00:00Z``, the
  format upstream documents) matches that second;
* ``progress`` is what a server shows (100 when ACTIVE, else 0).

They are for administrators (the ``allow_all_filters`` policy); from
2.83 for everyone. A filter a caller may not use is ignored, as upstream
drops it.
"""

import datetime
from typing import Any

from oslo_utils import timeutils
import webob

from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.views import servers as views

#: Upstream's non-admin filters of 2.83.
SINCE = mv.NON_ADMIN_FILTERS
OWN_FILTERS = (
    'availability_zone',
    'config_drive',
    'key_name',
    'created_at',
    'launched_at',
    'terminated_at',
    'power_state',
    'task_state',
    'vm_state',
    'progress',
    'user_id',
)
_SEARCHED = ('availability_zone', 'config_drive', 'key_name', 'power_state')
_TIMES = ('created_at', 'launched_at', 'terminated_at')
ALL_FILTERS_POLICY = 'os_compute_api:servers:allow_all_filters'


def allowed(req: webob.Request, since: str = SINCE) -> bool:
    """May the caller use a filter that is everyone's from ``since``
    (those of this module: 2.83) and before that only for whoever
    ``allow_all_filters`` allows?"""
    return util.version(req).at_least(since) or util.check(
        req, ALL_FILTERS_POLICY
    )


def _timestamp(value: str) -> datetime.datetime | None:
    """A full ISO 8601 date and time, in UTC; None for other text."""
    if 'T' not in value.upper():
        return None
    try:
        when = timeutils.parse_isotime(value)
    except ValueError:
        return None
    return timeutils.normalize_time(when)


def _times(req: webob.Request, found: dict[str, Any], regex: Any) -> None:
    for name in _TIMES:
        value = req.GET.get(name)
        if not value:
            continue
        when = _timestamp(value)
        if when is not None:
            found.setdefault('at', {})[name] = when
        else:
            found.setdefault('search', {})[name] = regex(value, name)


def add(req: webob.Request, found: dict[str, Any], regex: Any) -> None:
    """Add the filters the request asks (and may ask) to ``found``;
    ``regex`` checks a regular expression (a 400 when invalid)."""
    if not allowed(req):
        return
    get = req.GET.get
    if get('user_id'):
        found['user_id'] = get('user_id')
    for name in ('vm_state', 'task_state'):
        if get(name) and not (name == 'vm_state' and get('status')):
            found[name] = [get(name).lower()]
    for name in _SEARCHED:
        if get(name):
            found.setdefault('search', {})[name] = regex(get(name), name)
    _times(req, found, regex)
    if get('progress'):
        found['progress'] = regex(get('progress'), 'progress')
        found['active_busy_tasks'] = sorted(views.ACTIVE_BUSY_TASKS)
