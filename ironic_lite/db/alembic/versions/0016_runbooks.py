"""Runbooks (API 1.92), their steps, and their traits (1.112)

A runbook is a named list of steps an operator (or a project allowed
to) runs on a node for manual cleaning or servicing.

Revision ID: 0016
Revises: 0015
"""

from alembic import op
import sqlalchemy as sa

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        'runbooks',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('public', sa.Boolean(), nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('disable_ramdisk', sa.Boolean(), nullable=False),
        sa.Column('extra', sa.Text(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_runbooks0uuid'),
        sa.UniqueConstraint('name', name='uniq_runbooks0name'),
    )
    op.create_table(
        'runbook_steps',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('runbook_id', sa.Integer(), nullable=False),
        sa.Column('interface', sa.String(255), nullable=False),
        sa.Column('step', sa.String(255), nullable=False),
        sa.Column('args', sa.Text(), nullable=False),
        sa.Column('order', sa.Integer(), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(
            ['runbook_id'], ['runbooks.id'], name='fk_runbook_steps0runbook_id'
        ),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('runbook_id', 'runbook_steps', ['runbook_id'])
    op.create_table(
        'runbook_traits',
        sa.Column('runbook_id', sa.Integer(), nullable=False),
        sa.Column('trait', sa.String(255), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(
            ['runbook_id'],
            ['runbooks.id'],
            name='fk_runbook_traits0runbook_id',
        ),
        sa.PrimaryKeyConstraint('runbook_id', 'trait'),
    )
    op.create_index('runbook_traits_idx', 'runbook_traits', ['trait'])


def downgrade() -> None:
    op.drop_table('runbook_traits')
    op.drop_table('runbook_steps')
    op.drop_table('runbooks')
