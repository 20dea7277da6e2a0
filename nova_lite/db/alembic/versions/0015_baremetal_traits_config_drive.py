"""Compute nodes: their traits; instances: user_data and key_data
(what a config drive holds)

Revision ID: 0015
Revises: 0014
"""

from alembic import op
import sqlalchemy as sa


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('compute_nodes') as batch:
        batch.add_column(sa.Column('traits', sa.Text(), nullable=True))
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('user_data', sa.Text(), nullable=True))
        batch.add_column(sa.Column('key_data', sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('instances') as batch:
        batch.drop_column('key_data')
        batch.drop_column('user_data')
    with op.batch_alter_table('compute_nodes') as batch:
        batch.drop_column('traits')
