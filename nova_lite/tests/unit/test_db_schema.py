"""The models and the alembic migrations describe the same schema.

Run on SQLite (a file), MariaDB and PostgreSQL. The servers are expected
on 127.0.0.1 (MariaDB: root without password; PostgreSQL: postgres,
trust); a test fails, rather than skips, when its server is unreachable.
Each test creates its own uniquely named database and drops it.
"""

import pytest
import sqlalchemy as sa

from lite_common.tests import backends
from lite_common.tests import schema_contract
from nova_lite.db import api as db_api
from nova_lite.db import migration
from nova_lite.db import models

# The fixture, by its name: a new database on each backend.
db_url = backends.db_url


engine = schema_contract.engine_fixture(db_api)


def _schema_diff(engine):
    return schema_contract.schema_diff(engine, models.Base.metadata)


class TestSchema(schema_contract.MigrationsMatchModels):
    migration = migration
    metadata = models.Base.metadata
    head = '0019'


@pytest.mark.parametrize('db_url', ['sqlite'], indirect=True)
def test_schema_comparison_sees_drift(engine):
    """The comparison is not vacuous: drift is reported."""
    migration.db_sync(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql('DROP INDEX images_name_idx')
        conn.exec_driver_sql('ALTER TABLE flavors ADD COLUMN extra INTEGER')
    diff = _schema_diff(engine)
    assert len(diff) == 2, diff
    by_kind = {d[0]: d for d in diff}
    assert by_kind['add_index'][1].name == 'images_name_idx'
    # ('remove_column', schema, table, column)
    _, _, table, column = by_kind['remove_column']
    assert (table, column.name) == ('flavors', 'extra')


def test_0012_gives_existing_instances_a_hostname(engine):
    """Rows from before 0012 get the host name derived from their
    display name (``Server-<uuid>`` when nothing is left of it)."""
    migration.db_sync(engine, '0011')
    names = {
        '6f5d3b1c-2a4e-4f6b-9c8d-7e6f5a4b3c2d': 'My Web_Server.01',
        '0b9a1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d': '***',
        '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f': None,
    }
    insert = sa.text(
        'INSERT INTO instances (uuid, display_name, project_id, user_id, '
        'flavor, vcpus, memory_mb, root_gb, vm_state, power_state, '
        'metadata, created_at, deleted, locked) VALUES (:uuid, :name, '
        "'p', 'u', '{}', 1, 64, 0, 'active', 1, '{}', :now, 0, :locked)"
    )
    with engine.begin() as conn:
        for uuid, name in names.items():
            conn.execute(
                insert,
                {
                    'uuid': uuid,
                    'name': name,
                    'now': '2026-01-01 00:00:00',
                    'locked': False,
                },
            )
    migration.db_sync(engine)
    with engine.connect() as conn:
        found = dict(
            conn.execute(sa.text('SELECT uuid, hostname FROM instances')).all()
        )
    assert found == {
        '6f5d3b1c-2a4e-4f6b-9c8d-7e6f5a4b3c2d': 'my-web-server-01',
        '0b9a1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d': (
            'Server-0b9a1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d'
        ),
        '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f': (
            'Server-1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f'
        ),
    }


_IMAGE = sa.text(
    'INSERT INTO images (id, name, status, visibility, owner, min_disk, '
    'min_ram, protected, tags, properties, created_at) VALUES (:id, :id, '
    "'active', 'private', :owner, 0, 0, :no, '[]', '{}', "
    "'2026-01-01 00:00:00')"
)
UPPER = 'ABCDEF01-2345-4678-9ABC-DEF012345678'


def test_0018_lowers_image_ids_and_the_servers_naming_them(engine):
    migration.db_sync(engine, '0017')
    with engine.begin() as conn:
        conn.execute(_IMAGE, {'id': UPPER, 'owner': 'p', 'no': False})
        conn.execute(
            sa.text(
                'INSERT INTO instances (uuid, display_name, project_id, '
                'user_id, flavor, vcpus, memory_mb, root_gb, vm_state, '
                'power_state, metadata, created_at, deleted, locked, '
                'hostname, '
                "image_ref) VALUES ('6f5d3b1c-2a4e-4f6b-9c8d-7e6f5a4b3c2d', "
                "'s', 'p', 'u', '{}', 1, 64, 0, 'active', 1, '{}', "
                "'2026-01-01 00:00:00', 0, :no, 's', :ref)"
            ),
            {'no': False, 'ref': UPPER},
        )
    migration.db_sync(engine)
    with engine.connect() as conn:
        images = conn.execute(sa.text('SELECT id FROM images')).scalars()
        refs = conn.execute(
            sa.text('SELECT image_ref FROM instances')
        ).scalars()
        # MariaDB compares in any case: an upper-case id stays as it is
        # there, and is found by its lower-case form all the same.
        assert {i.lower() for i in images} == {UPPER.lower()}
        assert {r.lower() for r in refs} == {UPPER.lower()}
        if engine.dialect.name != 'mysql':
            assert (
                conn.execute(sa.text('SELECT id FROM images')).scalar()
                == UPPER.lower()
            )


@pytest.mark.parametrize('db_url', ['sqlite', 'postgresql'], indirect=True)
def test_0018_stops_at_images_that_differ_only_in_case(engine):
    """Twins exist only where comparisons are case-sensitive."""
    migration.db_sync(engine, '0017')
    with engine.begin() as conn:
        conn.execute(_IMAGE, {'id': UPPER, 'owner': 'member', 'no': False})
        conn.execute(
            _IMAGE, {'id': UPPER.lower(), 'owner': 'other', 'no': False}
        )
    with pytest.raises(RuntimeError, match=UPPER.lower()):
        migration.db_sync(engine)
    assert migration.db_version(engine) == '0017'
