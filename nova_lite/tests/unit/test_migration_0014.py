"""Migration 0014 copies the image properties of existing servers into
their system metadata (what create and rebuild do since 2.98)."""

import datetime

import orjson
import pytest
import sqlalchemy as sa

from lite_common.tests import backends
from nova_lite.db import migration
from nova_lite.tests.unit.test_db_schema import engine  # noqa: F401

db_url = backends.db_url
NOW = datetime.datetime(2026, 1, 1)


def _instance(uuid, image_ref, system_metadata, deleted=0):
    return {
        'uuid': uuid,
        'project_id': 'p',
        'user_id': 'u',
        'image_ref': image_ref,
        'flavor': '{}',
        'vcpus': 1,
        'memory_mb': 64,
        'root_gb': 1,
        'vm_state': 'active',
        'power_state': 1,
        'metadata': '{}',
        'created_at': NOW,
        'deleted': deleted,
        'system_metadata': (
            orjson.dumps(system_metadata).decode()
            if system_metadata is not None
            else None
        ),
    }


@pytest.mark.parametrize(
    'db_url', ['sqlite', 'mysql', 'postgresql'], indirect=True
)
def test_image_properties_copied(engine):  # noqa: F811
    migration.db_sync(engine, '0013')
    meta = sa.MetaData()
    images = sa.Table('images', meta, autoload_with=engine)
    instances = sa.Table('instances', meta, autoload_with=engine)
    with engine.begin() as conn:
        conn.execute(
            images.insert().values(
                id='img-1',
                status='active',
                visibility='public',
                min_disk=0,
                min_ram=0,
                protected=False,
                tags='[]',
                created_at=NOW,
                properties=orjson.dumps(
                    {'hw_disk_bus': 'scsi', 'custom': 7, 'img_mappings': 'x'}
                ).decode(),
            )
        )
        conn.execute(
            instances.insert(),
            [
                _instance('a', 'img-1', None),
                # A server's own copy wins over the catalog's.
                _instance(
                    'b',
                    'img-1',
                    {'image_hw_disk_bus': 'virtio', 'shelved_image_id': 's'},
                ),
                _instance('c', 'img-gone', {'k': 'v'}),
                _instance('d', 'img-1', {}, deleted=4),
            ],
        )

    migration.db_sync(engine)

    with engine.connect() as conn:
        rows = dict(
            conn.execute(
                sa.select(instances.c.uuid, instances.c.system_metadata)
            ).all()
        )
    assert orjson.loads(rows['a']) == {
        'image_hw_disk_bus': 'scsi',
        'image_custom': '7',
    }
    assert orjson.loads(rows['b']) == {
        'image_hw_disk_bus': 'virtio',
        'image_custom': '7',
        'shelved_image_id': 's',
    }
    assert orjson.loads(rows['c']) == {'k': 'v'}
    assert orjson.loads(rows['d']) == {}
