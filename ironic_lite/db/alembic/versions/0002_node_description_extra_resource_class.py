"""Nodes: description, extra and resource_class (Bare Metal API fields)

Revision ID: 0002
Revises: 0001
"""

from alembic import op
import sqlalchemy as sa

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('nodes') as batch:
        batch.add_column(sa.Column('description', sa.Text(), nullable=True))
        # JSON kept as text (models.JSONText); existing rows get {}.
        batch.add_column(
            sa.Column('extra', sa.Text(), nullable=False, server_default='{}')
        )
        batch.add_column(
            sa.Column('resource_class', sa.String(length=80), nullable=True)
        )
    with op.batch_alter_table('nodes') as batch:
        batch.alter_column(
            'extra',
            server_default=None,
            existing_type=sa.Text(),
            existing_nullable=False,
        )


def downgrade() -> None:
    with op.batch_alter_table('nodes') as batch:
        batch.drop_column('resource_class')
        batch.drop_column('extra')
        batch.drop_column('description')
