"""Images: the checksum and the secure hash of their data

Images now hold bytes (``PUT /image/v2/images/{id}/file``): the MD5
``checksum`` and ``os_hash_algo``/``os_hash_value`` computed while the
data is stored, as Glance shows them. Images from before have no data:
the three columns stay empty.

Revision ID: 0019
Revises: 0018
"""

from alembic import op
import sqlalchemy as sa


revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('images') as batch:
        batch.add_column(sa.Column('checksum', sa.String(32)))
        batch.add_column(sa.Column('os_hash_algo', sa.String(64)))
        batch.add_column(sa.Column('os_hash_value', sa.String(128)))


def downgrade() -> None:
    with op.batch_alter_table('images') as batch:
        batch.drop_column('os_hash_value')
        batch.drop_column('os_hash_algo')
        batch.drop_column('checksum')
