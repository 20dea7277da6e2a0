"""A new, empty database on each backend the project supports.

SQLite (a file), MariaDB and PostgreSQL on 127.0.0.1 (MariaDB: root
without password; PostgreSQL: postgres, trust; or the servers named by
STACKLITE_TEST_MYSQL / STACKLITE_TEST_POSTGRES). A test fails, rather
than skips, when its server is unreachable. Each test gets its own
uniquely named database, dropped afterwards.
"""

import os
import uuid

import pytest
import sqlalchemy as sa

MYSQL_SERVER = os.environ.get(
    'STACKLITE_TEST_MYSQL', 'mysql+pymysql://root@127.0.0.1'
)
POSTGRES_SERVER = os.environ.get(
    'STACKLITE_TEST_POSTGRES', 'postgresql+psycopg2://postgres@127.0.0.1'
)
BACKENDS = ['sqlite', 'mysql', 'postgresql']


def _server_admin(url):
    return sa.create_engine(
        url, isolation_level='AUTOCOMMIT', poolclass=sa.pool.NullPool
    )


@pytest.fixture(params=BACKENDS)
def db_url(request, tmp_path):
    """The URL of a new, empty database on one backend; dropped after."""
    name = f'stacklite_test_{uuid.uuid4().hex[:12]}'
    if request.param == 'sqlite':
        yield f'sqlite:///{tmp_path / (name + ".db")}'
        return
    if request.param == 'mysql':
        admin = _server_admin(f'{MYSQL_SERVER}/')
        create = f'CREATE DATABASE {name} CHARACTER SET utf8mb4'
        drop = f'DROP DATABASE IF EXISTS {name}'
        url = f'{MYSQL_SERVER}/{name}'
    else:
        admin = _server_admin(f'{POSTGRES_SERVER}/postgres')
        create = f'CREATE DATABASE {name}'
        drop = f'DROP DATABASE IF EXISTS {name} WITH (FORCE)'
        url = f'{POSTGRES_SERVER}/{name}'
    unreachable = None
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(create)
    except sa.exc.OperationalError as exc:
        unreachable = exc.orig
    if unreachable is not None:
        # A failure, not a skip: these backends are part of the contract.
        pytest.fail(
            f'{request.param} server {admin.url} is unreachable: '
            f'{unreachable}',
            pytrace=False,
        )
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(drop)
        admin.dispose()
