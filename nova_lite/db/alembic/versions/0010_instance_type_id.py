"""Instances: the integer id of the flavor they were built or resized
to (``instance_type_id``, upstream's name), for the server list's
``?flavor=`` filter and ``sort_key=instance_type_id``

Revision ID: 0010
Revises: 0009

The flavor snapshot (JSON text) keeps the flavor's ``flavorid``; the
new column is filled from it for the flavors that still exist.
"""

import json

from alembic import op
import sqlalchemy as sa


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def _backfill() -> None:
    conn = op.get_bind()
    ids = dict(conn.execute(sa.text('SELECT flavorid, id FROM flavors')).all())
    rows = conn.execute(sa.text(
        'SELECT id, flavor FROM instances')).all()
    update = sa.text('UPDATE instances SET instance_type_id = :type_id '
                     'WHERE id = :id')
    for inst_id, flavor in rows:
        flavorid = (json.loads(flavor) or {}).get('flavorid') if flavor \
            else None
        if ids.get(flavorid) is not None:
            conn.execute(update, {'type_id': ids[flavorid], 'id': inst_id})


def upgrade() -> None:
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('instance_type_id', sa.Integer(),
                                   nullable=True))
        batch.create_index('instances_instance_type_id_deleted_idx',
                           ['instance_type_id', 'deleted'])
    _backfill()


def downgrade() -> None:
    with op.batch_alter_table('instances') as batch:
        batch.drop_index('instances_instance_type_id_deleted_idx')
        batch.drop_column('instance_type_id')
