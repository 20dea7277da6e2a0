"""What both services' database schemas promise, as tests to inherit.

A service's schema test module sets the three attributes of
:class:`MigrationsMatchModels` on a subclass named ``Test...`` and
makes its ``engine`` fixture with :func:`engine_fixture`; the tests then
run on SQLite (a file), MariaDB and PostgreSQL (the ``db_url`` fixture
of :mod:`lite_common.tests.backends`, which the module imports as
``db_url``). Each test makes its own database.
"""

from collections.abc import Iterator
from types import ModuleType
from typing import Any

from alembic import command as alembic_command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
import pytest
import sqlalchemy as sa

from lite_common import db as lite_db


def schema_diff(engine: sa.engine.Engine, metadata: sa.MetaData) -> Any:
    """What autogenerate would change to make the database match
    ``metadata``. Nothing is filtered out: on all three backends the
    migrated schema matches the models exactly (types included), so any
    difference is a real drift."""
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={'compare_type': True})
        return compare_metadata(context, metadata)


def downgrade(
    engine: sa.engine.Engine, alembic_dir: str, revision: str = 'base'
) -> None:
    config = lite_db.alembic_cfg(
        alembic_dir, engine.url.render_as_string(False)
    )
    with engine.begin() as conn:
        config.attributes['connection'] = conn
        alembic_command.downgrade(config, revision)


def engine_fixture(db_api: ModuleType) -> Any:
    """An ``engine`` fixture: the engine the service's db sync command
    would use (oslo.db's, with the hooks of ``db_api``'s context
    manager), on a new database of each backend."""

    @pytest.fixture
    def engine(db_url: str) -> Iterator[sa.engine.Engine]:
        manager = db_api.context_manager.make_new_manager()
        manager.configure(connection=db_url)
        try:
            yield manager.writer.get_engine()
        finally:
            manager.dispose_pool()

    return engine


class MigrationsMatchModels:
    """The models and the alembic migrations describe one schema."""

    #: The service's ``db.migration`` module (db_sync, db_version,
    #: ALEMBIC_DIR).
    migration: ModuleType
    #: The models' ``Base.metadata``.
    metadata: sa.MetaData
    #: The newest migration.
    head: str

    def diff(self, engine: sa.engine.Engine) -> Any:
        return schema_diff(engine, self.metadata)

    def test_one_head(self) -> None:
        config = lite_db.alembic_cfg(self.migration.ALEMBIC_DIR, 'sqlite://')
        script = ScriptDirectory.from_config(config)
        assert script.get_heads() == [self.head]

    def test_models_and_migrations_agree(
        self, engine: sa.engine.Engine
    ) -> None:
        assert self.migration.db_version(engine) is None
        assert sa.inspect(engine).get_table_names() == []

        self.migration.db_sync(engine)

        assert self.migration.db_version(engine) == self.head
        tables = set(sa.inspect(engine).get_table_names())
        assert tables == set(self.metadata.tables) | {'alembic_version'}
        assert self.diff(engine) == []

    def test_db_sync_twice_is_a_no_op(self, engine: sa.engine.Engine) -> None:
        self.migration.db_sync(engine)
        self.migration.db_sync(engine)
        assert self.migration.db_version(engine) == self.head
        assert self.diff(engine) == []

    def test_downgrade_leaves_only_alembic_version(
        self, engine: sa.engine.Engine
    ) -> None:
        self.migration.db_sync(engine)
        downgrade(engine, self.migration.ALEMBIC_DIR)

        assert sa.inspect(engine).get_table_names() == ['alembic_version']
        assert self.migration.db_version(engine) is None

        # And the migrations run again on the downgraded database.
        self.migration.db_sync(engine)
        assert self.migration.db_version(engine) == self.head
        assert self.diff(engine) == []
