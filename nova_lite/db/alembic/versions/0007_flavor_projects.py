"""Flavor access: the projects that see a private flavor

Revision ID: 0007
Revises: 0006
"""

from alembic import op
import sqlalchemy as sa


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'flavor_projects',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('flavor_id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.ForeignKeyConstraint(['flavor_id'], ['flavors.id'],
                                name='flavor_projects_flavor_id_fkey'),
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_projects0flavor_id0project_id'))


def downgrade() -> None:
    op.drop_table('flavor_projects')
