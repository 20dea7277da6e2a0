"""Server list filters that match as upstream's ``_regex_instance_filter``
does: a regular expression searched in the column's text (REGEXP on
MariaDB/MySQL, ``~`` on PostgreSQL, Python's ``re`` on SQLite).

Filters (keys of a list's filter dict):

``search``
    {column: regular expression}: ``availability_zone``, ``config_drive``,
    ``key_name``, ``power_state`` (its number as text) and the times
    ``created_at``, ``launched_at``, ``terminated_at``, whose text is
    ``YYYY-MM-DD HH:MM:SS`` on every backend (MariaDB's, which upstream
    matches against).
``at``
    {time column: datetime}: a time within that second (a filter given
    as an ISO 8601 timestamp).
``progress``
    a regular expression on the progress a server shows: nova_lite keeps
    no progress column; a server shows 100 when its status is ACTIVE
    (``vm_state`` active with none of ``active_busy_tasks``), else 0.
"""

from collections.abc import Iterator
import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import expression

from nova_lite.db import models

INST = models.Instance
SEARCHED = frozenset(
    (
        'availability_zone',
        'config_drive',
        'key_name',
        'power_state',
        'created_at',
        'launched_at',
        'terminated_at',
    )
)
TIMES = frozenset(('created_at', 'launched_at', 'terminated_at'))


class TimeText(expression.FunctionElement[str]):
    """A time column as ``YYYY-MM-DD HH:MM:SS`` text."""

    type = sa.String()
    inherit_cache = True


@compiler.compiles(TimeText)
def _time_text(element: TimeText, comp: Any, **kw: Any) -> str:
    column = comp.process(element.clauses, **kw)
    return f"strftime('%Y-%m-%d %H:%M:%S', {column})"


@compiler.compiles(TimeText, 'mysql')
def _time_text_mysql(element: TimeText, comp: Any, **kw: Any) -> str:
    return (
        f'DATE_FORMAT({comp.process(element.clauses, **kw)}, '
        "'%%Y-%%m-%%d %%H:%%i:%%s')"
    )


@compiler.compiles(TimeText, 'postgresql')
def _time_text_postgresql(element: TimeText, comp: Any, **kw: Any) -> str:
    return (
        f'to_char({comp.process(element.clauses, **kw)}, '
        "'YYYY-MM-DD HH24:MI:SS')"
    )


def _text(column: str) -> Any:
    attr = getattr(INST, column)
    if column in TIMES:
        return TimeText(attr)
    if column == 'power_state':
        return sa.cast(attr, sa.String)
    return attr


def shown_progress(busy_tasks: list[str]) -> Any:
    """The progress a server shows, as SQL text ('100' or '0')."""
    active = sa.and_(
        INST.vm_state == 'active',
        sa.or_(INST.task_state.is_(None), INST.task_state.not_in(busy_tasks)),
    )
    return sa.case((active, '100'), else_='0')


def clauses(filters: dict[str, Any]) -> Iterator[Any]:
    """The SQL conditions of the filters above."""
    for column, pattern in sorted((filters.get('search') or {}).items()):
        if column not in SEARCHED:
            raise ValueError(f'{column} is not searched')
        # NULL matches nothing (MariaDB's and PostgreSQL's answer; oslo.db's
        # SQLite REGEXP would search the text 'None').
        yield sa.and_(
            getattr(INST, column).is_not(None),
            _text(column).regexp_match(pattern),
        )
    for column, when in sorted((filters.get('at') or {}).items()):
        if column not in TIMES:
            raise ValueError(f'{column} is no time')
        start = when.replace(microsecond=0)
        attr = getattr(INST, column)
        yield sa.and_(
            attr >= start, attr < start + datetime.timedelta(seconds=1)
        )
    if filters.get('progress') is not None:
        yield shown_progress(
            filters.get('active_busy_tasks') or []
        ).regexp_match(filters['progress'])
