"""Compute nodes: the resource class of a whole machine (bare metal)

Revision ID: 0011
Revises: 0010
"""

from alembic import op
import sqlalchemy as sa


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('compute_nodes') as batch:
        batch.add_column(sa.Column('resource_class', sa.String(length=255),
                                   nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('compute_nodes') as batch:
        batch.drop_column('resource_class')
