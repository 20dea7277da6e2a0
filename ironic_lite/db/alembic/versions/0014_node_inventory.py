"""Node inventory (API 1.81): what an inspection found

One row per node (the last inspection's), deleted with the node.

Revision ID: 0014
Revises: 0013
"""

from alembic import op
import sqlalchemy as sa

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'node_inventory',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('node_id', sa.Integer(), nullable=False),
        sa.Column('inventory_data', sa.Text(), nullable=False),
        sa.Column('plugin_data', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ['node_id'], ['nodes.id'], name='fk_node_inventory0node_id'
        ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('node_id', name='uniq_node_inventory0node_id'),
    )


def downgrade() -> None:
    op.drop_table('node_inventory')
