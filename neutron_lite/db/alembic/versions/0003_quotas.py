"""Quotas: a project's own limits

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
    op.create_table(
        'quotas',
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('resource', sa.String(64), nullable=False),
        sa.Column('limit', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('project_id', 'resource'),
    )


def downgrade() -> None:
    op.drop_table('quotas')
