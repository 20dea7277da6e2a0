"""Server tags (2.26)

Revision ID: 0006
Revises: 0005
"""

from alembic import op
import sqlalchemy as sa


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'tags',
        sa.Column('resource_id', sa.String(length=36), nullable=False),
        sa.Column('tag', sa.String(length=80), nullable=False),
        sa.PrimaryKeyConstraint('resource_id', 'tag'))
    op.create_index('tags_tag_idx', 'tags', ['tag'])


def downgrade() -> None:
    op.drop_index('tags_tag_idx', 'tags')
    op.drop_table('tags')
