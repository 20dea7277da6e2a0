"""Node traits (API 1.37)

Revision ID: 0007
Revises: 0009
"""

from alembic import op
import sqlalchemy as sa

revision = '0007'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'node_traits',
        sa.Column('node_id', sa.Integer(), nullable=False),
        sa.Column('trait', sa.String(255), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ['node_id'], ['nodes.id'], name='fk_node_traits0node_id'
        ),
        sa.PrimaryKeyConstraint('node_id', 'trait'),
    )
    op.create_index('node_traits_idx', 'node_traits', ['trait'])


def downgrade() -> None:
    op.drop_index('node_traits_idx', table_name='node_traits')
    op.drop_table('node_traits')
