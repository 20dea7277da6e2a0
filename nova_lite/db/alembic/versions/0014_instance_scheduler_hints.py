"""Instances: the scheduler hints given at create (2.100); the image
properties of existing servers copied into their system metadata (2.98)

Revision ID: 0014
Revises: 0013
"""

from alembic import op
import orjson
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None

_IMAGE_PREFIX = 'image_'
_SKIPPED = ('mappings', 'block_device_mapping', 'img_mappings',
            'img_block_device_mapping')


def _copy_image_properties() -> None:
    """Servers created before 2.98 kept no copy of their image's
    properties: take them from the image catalog as it is now (what
    create and rebuild copy since, compute_api/image_meta.py)."""
    bind = op.get_bind()
    meta = sa.MetaData()
    instances = sa.Table('instances', meta, autoload_with=bind)
    images = sa.Table('images', meta, autoload_with=bind)
    found = bind.execute(
        sa.select(instances.c.id, instances.c.system_metadata,
                  images.c.properties)
        .join(images, images.c.id == instances.c.image_ref)
        .where(instances.c.deleted == 0)).all()
    for row_id, system_text, properties_text in found:
        system = orjson.loads(system_text) if system_text else {}
        properties = orjson.loads(properties_text) if properties_text else {}
        copied = {_IMAGE_PREFIX + key: str(value)[:255]
                  for key, value in properties.items()
                  if key not in _SKIPPED
                  and _IMAGE_PREFIX + key not in system}
        if copied:
            bind.execute(
                instances.update().where(instances.c.id == row_id)
                .values(system_metadata=orjson.dumps(
                    {**system, **copied}).decode()))


def upgrade() -> None:
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('scheduler_hints', sa.Text(),
                                   nullable=True))
    _copy_image_properties()


def downgrade() -> None:
    # The copied image properties stay: system metadata the older code
    # ignores.
    with op.batch_alter_table('instances') as batch:
        batch.drop_column('scheduler_hints')
