"""Can the tests log in to the servers tools/ensure-services.sh started?

The logins the tests use (lite_common/tests/backends.py,
tools/devstack_support.py): MariaDB root without a password and
PostgreSQL postgres without a password (or the servers named by
STACKLITE_TEST_MYSQL / STACKLITE_TEST_POSTGRES), each allowed to create a
database, and RabbitMQ guest/guest on 127.0.0.1:5672. Prints one line per
refusal with what to set up; exit 1 if any. Run with the project's
virtualenv (it has the drivers).
"""

import os
import sys

import kombu
import sqlalchemy as sa

MYSQL = os.environ.get(
    'STACKLITE_TEST_MYSQL', 'mysql+pymysql://root@127.0.0.1'
)
POSTGRES = os.environ.get(
    'STACKLITE_TEST_POSTGRES', 'postgresql+psycopg2://postgres@127.0.0.1'
)
RABBIT = 'amqp://guest:guest@127.0.0.1:5672//'

FIXES = {
    'MariaDB': "as root: mariadb -e \"ALTER USER 'root'@'localhost' "
    "IDENTIFIED BY ''\" (and the same for 'root'@'127.0.0.1')",
    'PostgreSQL': 'first line of /etc/postgresql/*/main/pg_hba.conf: '
    '"host all postgres 127.0.0.1/32 trust", then '
    'pg_ctlcluster VERSION main reload',
    'RabbitMQ': 'the guest user with password guest '
    '(rabbitmqctl add_user guest guest; '
    'rabbitmqctl set_permissions guest ".*" ".*" ".*")',
}


def _database(url: str, privilege_check: str) -> None:
    engine = sa.create_engine(
        url, poolclass=sa.pool.NullPool, connect_args={'connect_timeout': 5}
    )
    try:
        with engine.connect() as conn:
            if not conn.exec_driver_sql(privilege_check).scalar():
                raise RuntimeError('this user may not create databases')
    finally:
        engine.dispose()


def _rabbit() -> None:
    with kombu.Connection(RABBIT, connect_timeout=5) as conn:
        conn.connect()


CHECKS = {
    'MariaDB': (
        f'{MYSQL}/',
        lambda: _database(
            f'{MYSQL}/',
            'SELECT COUNT(*) FROM information_schema.user_privileges '
            "WHERE privilege_type = 'CREATE' AND grantee = "
            "CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', "
            "SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')",
        ),
    ),
    'PostgreSQL': (
        f'{POSTGRES}/postgres',
        lambda: _database(
            f'{POSTGRES}/postgres',
            'SELECT rolcreatedb OR rolsuper FROM pg_roles '
            'WHERE rolname = current_user',
        ),
    ),
    'RabbitMQ': ('amqp://guest:***@127.0.0.1:5672//', _rabbit),
}


def main() -> int:
    refused = 0
    for name, (where, check) in CHECKS.items():
        try:
            check()
        except Exception as exc:
            refused += 1
            reason = str(getattr(exc, 'orig', None) or exc).strip()
            print(
                f'check-test-logins: ERROR: {name} at {where}: {reason}\n'
                f'  the tests need: {FIXES[name]}',
                file=sys.stderr,
            )
        else:
            print(f'check-test-logins: {name} at {where}: login works')
    return 1 if refused else 0


if __name__ == '__main__':
    sys.exit(main())
