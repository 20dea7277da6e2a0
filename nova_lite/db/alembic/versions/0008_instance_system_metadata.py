"""Instances: system metadata (what a shelve leaves for its unshelve)
and the reason of a lock (2.73)

Revision ID: 0008
Revises: 0007
"""

from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('system_metadata', sa.Text(),
                                   nullable=True))
        batch.add_column(sa.Column('locked_reason', sa.String(length=255),
                                   nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('instances') as batch:
        batch.drop_column('locked_reason')
        batch.drop_column('system_metadata')
