"""Access to the volume connectors and volume targets of nodes.

Both tables work alike; :data:`CONNECTORS` and :data:`TARGETS` say what
differs (the model, the errors, the columns not to sort by). Rows come
back as dicts with the uuid of their node (``node_uuid``), joined in
the same query: a list is one query whatever its length.
"""

import dataclasses
from typing import Any
from typing import cast

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from ironic_lite import exception
from ironic_lite.db import paging
from ironic_lite.db.api import context_manager
from ironic_lite.db.api import retried
from ironic_lite.db.api import retry_on_disconnect
from ironic_lite.db.models import Node
from ironic_lite.db.models import VolumeConnector
from ironic_lite.db.models import VolumeTarget
from lite_common.context import RequestContext


@dataclasses.dataclass(frozen=True)
class Kind:
    model: Any
    not_found: Any
    #: (the unique columns, the exception, the values it names)
    duplicates: tuple[tuple[frozenset[str], Any, tuple[str, ...]], ...]
    unsortable: tuple[str, ...]

    def missing(self, ident: str) -> Exception:
        return cast('Exception', self.not_found(ident))


CONNECTORS = Kind(
    VolumeConnector,
    lambda ident: exception.VolumeConnectorNotFound(connector=ident),
    (
        (
            frozenset({'type', 'connector_id'}),
            exception.VolumeConnectorTypeAndIdAlreadyExists,
            ('type', 'connector_id'),
        ),
        (
            frozenset({'uuid'}),
            exception.VolumeConnectorAlreadyExists,
            ('uuid',),
        ),
    ),
    ('extra',),
)
TARGETS = Kind(
    VolumeTarget,
    lambda ident: exception.VolumeTargetNotFound(target=ident),
    (
        (
            frozenset({'node_id', 'boot_index'}),
            exception.VolumeTargetBootIndexAlreadyExists,
            ('boot_index',),
        ),
        (frozenset({'uuid'}), exception.VolumeTargetAlreadyExists, ('uuid',)),
    ),
    ('extra', 'properties'),
)


def _select(kind: Kind) -> Any:
    return sa.select(kind.model.__table__, Node.uuid.label('node_uuid')).join(
        Node, Node.id == kind.model.node_id
    )


def _of_project(project: str) -> Any:
    """Nodes ``project`` owns or leases (none while the nodes table
    has no such columns)."""
    columns = [
        getattr(Node, name)
        for name in ('owner', 'lessee')
        if name in Node.__table__.columns
    ]
    if not columns:
        return sa.false()
    return sa.or_(*(column == project for column in columns))


def _duplicate(
    kind: Kind, exc: db_exc.DBDuplicateEntry, values: dict[str, Any]
) -> Exception:
    columns = set(exc.columns or ())
    for unique, error, names in kind.duplicates:
        if columns & (unique - {'node_id'}):
            return cast(
                'Exception',
                error(**{name: values.get(name) for name in names}),
            )
    # A backend that does not name the columns: the first constraint
    # that is not the uuid's.
    unique, error, names = kind.duplicates[0]
    return cast(
        'Exception', error(**{name: values.get(name) for name in names})
    )


def _get(session: Any, kind: Kind, uuid: str) -> dict[str, Any]:
    row = (
        session.execute(_select(kind).where(kind.model.uuid == uuid))
        .mappings()
        .first()
    )
    if row is None:
        raise kind.missing(uuid)
    return dict(row)


@retried
def create(
    context: RequestContext, kind: Kind, values: dict[str, Any]
) -> dict[str, Any]:
    """Insert a row (``values`` with ``node_id``); returns it.

    :raises: the kind's AlreadyExists errors.
    """
    values = dict(values)
    if not values.get('uuid'):
        values['uuid'] = uuidutils.generate_uuid()
    try:
        with context_manager.writer.using(context) as session:
            session.add(kind.model(**values))
            session.flush()
            return _get(session, kind, values['uuid'])
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(kind, exc, values)


@retry_on_disconnect
def get(context: RequestContext, kind: Kind, uuid: str) -> dict[str, Any]:
    """:raises: the kind's NotFound error."""
    with context_manager.reader.using(context) as session:
        return _get(session, kind, uuid)


@retry_on_disconnect
def list_page(
    context: RequestContext,
    kind: Kind,
    node_id: int | None = None,
    limit: int | None = None,
    marker: str | None = None,
    sort_key: str = 'id',
    sort_dir: str = 'asc',
    project: str | None = None,
) -> list[dict[str, Any]]:
    """One page, of one node's rows with ``node_id``; with
    ``project``, only of the nodes it owns or leases.

    :raises InvalidParameterValue: sort key or direction.
    :raises: the kind's NotFound error for an unknown marker.
    """
    column = paging.check_sort(kind.model, sort_key, sort_dir, kind.unsortable)
    query = _select(kind)
    if node_id is not None:
        query = query.where(kind.model.node_id == node_id)
    if project is not None:
        query = query.where(_of_project(project))
    with context_manager.reader.using(context) as session:
        return paging.page(
            session,
            kind.model,
            query,
            column,
            sort_dir == 'desc',
            limit,
            marker,
            kind.missing,
        )


@retried
def update(
    context: RequestContext, kind: Kind, uuid: str, values: dict[str, Any]
) -> dict[str, Any]:
    """Write ``values`` (columns) of one row; returns it.

    :raises: the kind's NotFound and AlreadyExists errors.
    """
    try:
        with context_manager.writer.using(context) as session:
            result = session.execute(
                sa.update(kind.model)
                .where(kind.model.uuid == uuid)
                .values(**values)
                .execution_options(synchronize_session=False)
            )
            if result.rowcount != 1:
                raise kind.missing(uuid)
            return _get(session, kind, uuid)
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(kind, exc, values)


@retried
def destroy(context: RequestContext, kind: Kind, uuid: str) -> None:
    """:raises: the kind's NotFound error."""
    with context_manager.writer.using(context) as session:
        result = session.execute(
            sa.delete(kind.model).where(kind.model.uuid == uuid)
        )
        if result.rowcount != 1:
            raise kind.missing(uuid)
