"""Chassis, and the chassis of a node (API 1.1)

Revision ID: 0004
Revises: 0007
"""

from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'chassis',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('extra', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'),
    )
    with op.batch_alter_table('nodes') as batch:
        batch.add_column(sa.Column('chassis_id', sa.Integer(), nullable=True))
        batch.create_foreign_key(
            'fk_nodes0chassis_id', 'chassis', ['chassis_id'], ['id']
        )
        batch.create_index('nodes_chassis_id_idx', ['chassis_id'])


def downgrade() -> None:
    # The foreign key first: MySQL keeps the index while a key needs it.
    with op.batch_alter_table('nodes') as batch:
        batch.drop_constraint('fk_nodes0chassis_id', type_='foreignkey')
    with op.batch_alter_table('nodes') as batch:
        batch.drop_index('nodes_chassis_id_idx')
        batch.drop_column('chassis_id')
    op.drop_table('chassis')
