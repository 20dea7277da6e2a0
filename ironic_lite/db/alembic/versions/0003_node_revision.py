"""Nodes: revision, for optimistic concurrency of node writes

Revision ID: 0003
Revises: 0002
"""

from alembic import op
import sqlalchemy as sa

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('nodes') as batch:
        # Existing rows start at 0; every write of a node adds one.
        batch.add_column(
            sa.Column(
                'revision', sa.Integer(), nullable=False, server_default='0'
            )
        )
    with op.batch_alter_table('nodes') as batch:
        batch.alter_column(
            'revision',
            server_default=None,
            existing_type=sa.Integer(),
            existing_nullable=False,
        )


def downgrade() -> None:
    with op.batch_alter_table('nodes') as batch:
        batch.drop_column('revision')
