"""Alembic environment of the ironic_lite schema."""

from alembic import context
import sqlalchemy as sa

from ironic_lite.db import models

config = context.config
target_metadata = models.Base.metadata


def run_migrations_online() -> None:
    connection = config.attributes.get('connection')
    if connection is not None:
        context.configure(connection=connection,
                          target_metadata=target_metadata,
                          render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.get_main_option('sqlalchemy.url')
    if not url:
        raise RuntimeError('alembic: no connection and no sqlalchemy.url')
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        context.configure(connection=connection,
                          target_metadata=target_metadata,
                          render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


run_migrations_online()
