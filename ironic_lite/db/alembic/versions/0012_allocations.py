"""Allocations (API 1.52), and the allocation of a node

An allocation reserves an available node matching a resource class,
traits and candidates, for whoever deploys it next (or records the
instance of a node already deployed: backfill, 1.58). The node names
its allocation by integer id (nodes.allocation_id); the allocation its
node (allocations.node_id, a foreign key). Only the allocation side has
the constraint: one transaction writes both, and a node row must stay
deletable without a cycle of constraints.

Revision ID: 0012
Revises: 0011
"""

from alembic import op
import sqlalchemy as sa

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'allocations',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('node_id', sa.Integer(), nullable=True),
        sa.Column('state', sa.String(15), nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('last_error', sa.Text(), nullable=True),
        sa.Column('resource_class', sa.String(80), nullable=True),
        sa.Column('traits', sa.Text(), nullable=False),
        sa.Column('candidate_nodes', sa.Text(), nullable=False),
        sa.Column('extra', sa.Text(), nullable=False),
        sa.Column('conductor_affinity', sa.String(255), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ['node_id'], ['nodes.id'], name='fk_allocations0node_id'
        ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_allocations0uuid'),
        sa.UniqueConstraint('name', name='uniq_allocations0name'),
    )
    op.create_index('allocations_state_idx', 'allocations', ['state'])
    op.create_index('allocations_node_id_idx', 'allocations', ['node_id'])
    with op.batch_alter_table('nodes') as batch:
        batch.add_column(
            sa.Column('allocation_id', sa.Integer(), nullable=True)
        )
        batch.create_index('nodes_allocation_id_idx', ['allocation_id'])


def downgrade() -> None:
    with op.batch_alter_table('nodes') as batch:
        batch.drop_index('nodes_allocation_id_idx')
        batch.drop_column('allocation_id')
    # The indexes go with the table (MariaDB refuses to drop one that a
    # foreign key needs).
    op.drop_table('allocations')
