"""A migrated database patched into nova_lite's transaction context."""

from collections.abc import Iterator
import contextlib
from typing import Any

from nova_lite.common import has_database
from nova_lite.db import api as db_api
from nova_lite.db import migration


@contextlib.contextmanager
def temporary_database(url: str) -> Iterator[Any]:
    """Point every nova_lite DB call at ``url`` (migrated) in the block.

    ``make_new_manager`` copies the global factory's configuration
    (including the SQLite tuning hook) into an unstarted factory, and
    ``patch_factory`` swaps it in until the block ends. The process has
    a database from then on, as after ``db_api.configure`` (the objects
    run their remotable methods' bodies: see
    :mod:`nova_lite.common.has_database`), and keeps it after the
    block as a configured process does (a worker's stacks may overlap).
    """
    manager = db_api.context_manager.make_new_manager()
    manager.configure(connection=url)
    restore = db_api.context_manager.patch_factory(manager)
    has_database.enable()
    try:
        migration.db_sync(manager.writer.get_engine())
        yield manager
    finally:
        restore()
        manager.dispose_pool()
