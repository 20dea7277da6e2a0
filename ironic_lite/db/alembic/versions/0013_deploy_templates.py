"""Deploy templates (API 1.55) and their steps

A deploy template names a trait (``CUSTOM_...``); a node deployed with
that trait in ``instance_info['traits']`` runs the template's deploy
steps.

Revision ID: 0013
Revises: 0012
"""

from alembic import op
import sqlalchemy as sa

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'deploy_templates',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('extra', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_deploytemplates0uuid'),
        sa.UniqueConstraint('name', name='uniq_deploytemplates0name'),
    )
    op.create_table(
        'deploy_template_steps',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('deploy_template_id', sa.Integer(), nullable=False),
        sa.Column('interface', sa.String(255), nullable=False),
        sa.Column('step', sa.String(255), nullable=False),
        sa.Column('args', sa.Text(), nullable=False),
        sa.Column('priority', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ['deploy_template_id'],
            ['deploy_templates.id'],
            name='fk_deploy_template_steps0deploy_template_id',
        ),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(
        'deploy_template_id', 'deploy_template_steps', ['deploy_template_id']
    )


def downgrade() -> None:
    op.drop_table('deploy_template_steps')
    op.drop_table('deploy_templates')
