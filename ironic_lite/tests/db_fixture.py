"""A migrated database patched into ironic_lite's transaction context.

Shared by the ``ctx`` fixtures of the unit tests (a SQLite file) and of
the migration tests (SQLite, MariaDB, PostgreSQL).
"""

from collections.abc import Iterator
import contextlib

from ironic_lite.db import api as db_api
from ironic_lite.db import migration
from lite_common import context as lite_context


@contextlib.contextmanager
def migrated_db(connection: str) -> Iterator[object]:
    """Migrate ``connection`` and point the ironic_lite.db functions at it;
    yields an admin request context. Restored and disposed on exit."""
    manager = db_api.context_manager.make_new_manager()
    manager.configure(connection=connection)
    restore = db_api.context_manager.patch_factory(manager)
    try:
        migration.db_sync(manager.writer.get_engine())
        yield lite_context.get_admin_context()
    finally:
        restore()
        manager.dispose_pool()
