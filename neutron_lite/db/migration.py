"""Schema migrations: ``neutron-lite-db-manage upgrade`` and ``version``."""

from pathlib import Path

import sqlalchemy as sa

from lite_common import db as lite_db

ALEMBIC_DIR = Path(__file__).parent / 'alembic'


def db_sync(engine: sa.engine.Engine, revision: str = 'head') -> None:
    """Apply the migrations up to ``revision`` (idempotent)."""
    lite_db.upgrade(ALEMBIC_DIR, engine, revision)


def db_version(engine: sa.engine.Engine) -> str | None:
    """The revision the database is at, None when it is empty."""
    return lite_db.current_version(engine)
