"""Migrations: the hosts that refused a cold move's claim (its
reschedules)

Revision ID: 0016
Revises: 0015
"""

from alembic import op
import sqlalchemy as sa


revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('migrations') as batch:
        batch.add_column(sa.Column('refused_hosts', sa.Text(),
                                   nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('migrations') as batch:
        batch.drop_column('refused_hosts')
