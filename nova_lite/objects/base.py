"""Base classes of nova_lite's versioned objects and the indirection.

Compute agents have no database: their ``@remotable`` calls go to the
conductor through ``indirection_api``. Because the all-in-one runs the
API, the conductor and compute agents in one process, the indirection
is chosen per thread: :func:`remote_objects` routes the calls made in
its block through the conductor, while other threads (API, conductor)
keep the process default (normally: the database).

The bodies of the remotable methods call the database layer, which a
compute agent does not import: an object module reaches it through
:func:`database_module`, imported at its first use in a process that has
a database (the API, the conductor; see
:mod:`nova_lite.common.has_database`), and a clear error elsewhere.
"""

from collections.abc import Iterator
import contextlib
import importlib
import threading
from types import ModuleType
from typing import TYPE_CHECKING
from typing import Any
from typing import Self

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from lite_common import rpc
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import has_database

_local = threading.local()
_UNSET = object()


class IndirectionSwitch:
    """Class attribute read by ``@remotable``: thread value or default."""

    def __init__(self) -> None:
        self.default: Any = None

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        api = getattr(_local, 'api', _UNSET)
        return self.default if api is _UNSET else api


class NovaLiteObjectRegistry(ovo_base.VersionedObjectRegistry):
    pass


class NovaLiteObject(
    ovo_base.VersionedObject, ovo_base.VersionedObjectDictCompat
):
    OBJ_SERIALIZER_NAMESPACE = 'versioned_object'
    OBJ_PROJECT_NAMESPACE = 'nova_lite'

    indirection_api = IndirectionSwitch()

    if TYPE_CHECKING:
        # Fields are set by oslo.versionedobjects at class creation;
        # tell the type checker that they exist.
        def __getattr__(self, name: str) -> Any: ...

        def __setattr__(self, name: str, value: Any) -> None: ...

    def _load_from_db(self, values: dict[str, Any]) -> 'NovaLiteObject':
        """Set every field from a database row dict; clear changes."""
        for name in self.fields:
            if name in values:
                setattr(self, name, values[name])
        self.obj_reset_changes()
        return self

    @staticmethod
    def _from_db_object(
        context: RequestContext, obj: Any, values: dict[str, Any]
    ) -> Any:
        obj._load_from_db(values)
        obj._context = context
        return obj

    @classmethod
    def _from_db(cls, context: RequestContext, values: dict[str, Any]) -> Self:
        obj = cls(context)
        cls._from_db_object(context, obj, values)
        return obj


class NovaLiteObjectList(ovo_base.ObjectListBase[Any]):
    def __getitem__(self, index: Any) -> Any:
        # Lists index by position (ObjectListBase), not by field name
        # (the dict compatibility of NovaLiteObject, their other base).
        return super().__getitem__(index)

    @classmethod
    def _from_rows(
        cls, context: RequestContext, item_cls: Any, rows: list[dict[str, Any]]
    ) -> Self:
        made: Self = ovo_base.obj_make_list(
            context, cls(context), item_cls, rows
        )
        return made


class NovaLiteObjectSerializer(ovo_base.VersionedObjectSerializer):
    OBJ_BASE_CLASS = NovaLiteObject


class JSONField(fields.AutoTypedField[Any]):
    """Any JSON-compatible value, kept as is."""

    AUTO_TYPE = fields.FieldType()


def set_default_indirection(api: Any) -> None:
    """The process-wide indirection (a compute-only process sets it)."""
    NovaLiteObject.__dict__['indirection_api'].default = api


@contextlib.contextmanager
def remote_objects(api: Any) -> Iterator[None]:
    """Route object calls of this thread through ``api`` in the block."""
    previous = getattr(_local, 'api', _UNSET)
    _local.api = api
    try:
        yield
    finally:
        if previous is _UNSET:
            del _local.api
        else:
            _local.api = previous


class DatabaseModule:
    """A module of the database layer (``nova_lite.db.*``, or one that
    imports it, as the scheduler's claims do) for the bodies of
    remotable methods: imported at the first use of one of its names,
    and only in a process that has a database (see
    :mod:`nova_lite.common.has_database`).

    Elsewhere (a compute agent) a remotable call goes to the conductor
    through ``indirection_api``: a body that runs there anyway raises
    :class:`~nova_lite.exception.NoDatabase` and imports nothing.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith('__'):
            # Introspection (copy, mock, inspect) is not a database call.
            raise AttributeError(attribute)
        if not has_database.enabled():
            raise exception.NoDatabase(module=self._name, attribute=attribute)
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)

    def __repr__(self) -> str:
        return f'<database module {self._name}>'


def database_module(name: str) -> DatabaseModule:
    """The module ``name`` (dotted: ``nova_lite.db.instances``) as an
    object module's remotable bodies use it: an object module says

    .. code-block:: python

        if TYPE_CHECKING:
            from nova_lite.db import instances as db
        else:
            db = base.database_module('nova_lite.db.instances')

    so that the type checker reads the real module, and a process
    without a database never imports it.
    """
    return DatabaseModule(name)


TIMESTAMP_FIELDS: dict[str, fields.Field[Any]] = {
    'created_at': fields.DateTimeField(nullable=True),
    'updated_at': fields.DateTimeField(nullable=True),
}
SOFT_DELETE_FIELDS: dict[str, fields.Field[Any]] = {
    'deleted': fields.IntegerField(default=0),
    'deleted_at': fields.DateTimeField(nullable=True),
}


def rpc_serializer() -> Any:
    """The RPC serializer of every nova_lite service: versioned objects
    travel as primitives."""
    return rpc.get_serializer(NovaLiteObjectSerializer)
