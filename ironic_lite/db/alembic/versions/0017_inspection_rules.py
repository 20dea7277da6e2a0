"""Inspection rules (API 1.96)

A rule is a list of conditions on the data an inspection brought back
and a list of actions on the node when they hold, applied when the
inspection's data is processed.

Revision ID: 0017
Revises: 0016
"""

from alembic import op
import sqlalchemy as sa

revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'inspection_rules',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('priority', sa.Integer(), nullable=False),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('sensitive', sa.Boolean(), nullable=False),
        sa.Column('phase', sa.String(16), nullable=False),
        sa.Column('conditions', sa.Text(), nullable=False),
        sa.Column('actions', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_inspection_rules0uuid'),
    )
    op.create_index('inspection_rule_phase_idx', 'inspection_rules', ['phase'])


def downgrade() -> None:
    op.drop_table('inspection_rules')
