"""Lists as the Networking API asks for them, in SQL: filters (a value or
any of several), tags, sorting by several keys and keyset pagination
(``marker``: the id of the last item of the previous page).

Callers give the attribute-to-column map of their resource: an
attribute without a column cannot be filtered or sorted on.
"""

from collections.abc import Mapping
import dataclasses
from typing import Any

import sqlalchemy as sa

from neutron_lite import exception
from neutron_lite.db import models


@dataclasses.dataclass(frozen=True)
class ListRequest:
    """What a list call asks, parsed (:mod:`neutron_lite.api.listing`)."""

    #: attribute -> the values it may have (any of them).
    filters: Mapping[str, list[Any]] = dataclasses.field(default_factory=dict)
    #: (attribute, ascending) in order.
    sorts: tuple[tuple[str, bool], ...] = ()
    limit: int | None = None
    marker: str | None = None
    page_reverse: bool = False
    tags: tuple[str, ...] = ()
    tags_any: tuple[str, ...] = ()
    not_tags: tuple[str, ...] = ()
    not_tags_any: tuple[str, ...] = ()


def _tag_filter(
    model: Any, kind: str, tags: tuple[str, ...], every: bool
) -> Any:
    """Rows with every (or any) of ``tags``."""
    tagged = sa.select(models.Tag.resource_id).where(
        models.Tag.resource_type == kind, models.Tag.tag.in_(tags)
    )
    if every:
        tagged = tagged.group_by(models.Tag.resource_id).having(
            sa.func.count(sa.distinct(models.Tag.tag)) == len(set(tags))
        )
    return model.id.in_(tagged)


def apply(
    select: sa.Select[Any],
    model: Any,
    kind: str,
    columns: Mapping[str, Any],
    request: ListRequest,
    session: Any,
) -> sa.Select[Any]:
    """``select`` filtered, sorted and paged as ``request`` asks.

    :raises BadRequest: a sort key that is not sortable.
    """
    for attribute, values in request.filters.items():
        column = columns.get(attribute)
        if column is not None:
            select = select.where(column.in_(values))
    if request.tags:
        select = select.where(_tag_filter(model, kind, request.tags, True))
    if request.tags_any:
        select = select.where(
            _tag_filter(model, kind, request.tags_any, False)
        )
    if request.not_tags:
        select = select.where(
            sa.not_(_tag_filter(model, kind, request.not_tags, True))
        )
    if request.not_tags_any:
        select = select.where(
            sa.not_(_tag_filter(model, kind, request.not_tags_any, False))
        )
    sorts = list(request.sorts)
    for attribute, _ascending in sorts:
        if attribute not in columns:
            raise exception.BadRequest(
                resource=kind + 's',
                msg=f"'{attribute}' is an invalid attribute for sort key",
            )
    # The id last, so that the order is total (pagination needs it).
    if not any(attribute == 'id' for attribute, _ in sorts):
        sorts.append(('id', True))
    if request.page_reverse:
        sorts = [(a, not up) for a, up in sorts]
    if request.marker is not None:
        select = select.where(
            _after(session, model, columns, sorts, request.marker)
        )
    select = select.order_by(
        *(columns[a].asc() if up else columns[a].desc() for a, up in sorts)
    )
    if request.limit is not None:
        select = select.limit(request.limit)
    return select


def _after(
    session: Any,
    model: Any,
    columns: Mapping[str, Any],
    sorts: list[tuple[str, bool]],
    marker: str,
) -> Any:
    """The rows after the marker's in the order ``sorts``.

    :raises NotFound: no row has the marker's id.
    """
    row = session.execute(
        sa.select(*(columns[a] for a, _ in sorts)).where(model.id == marker)
    ).first()
    if row is None:
        raise exception.MarkerNotFound(marker=marker)
    clauses = []
    for index, (attribute, ascending) in enumerate(sorts):
        column = columns[attribute]
        value = row[index]
        equal = [
            columns[a] == row[i] for i, (a, _) in enumerate(sorts[:index])
        ]
        further = column > value if ascending else column < value
        clauses.append(sa.and_(*equal, further))
    return sa.or_(*clauses)
