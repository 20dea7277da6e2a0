"""Instance old_flavor and new_flavor, kept during a resize

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
    with op.batch_alter_table('instances', schema=None) as batch_op:
        batch_op.add_column(sa.Column('old_flavor', sa.Text(),
                                      nullable=True))
        batch_op.add_column(sa.Column('new_flavor', sa.Text(),
                                      nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('instances', schema=None) as batch_op:
        batch_op.drop_column('new_flavor')
        batch_op.drop_column('old_flavor')
