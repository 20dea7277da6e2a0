"""Conductors: the incarnation (process) holding each host name

``incarnation`` is the random id of the conductor process that holds the
host name (NULL once it stopped cleanly and let it go); ``process`` says
where that process runs (``pid N on MACHINE``), for the message that
refuses a second process; ``process_key`` identifies it for a process on
the same machine, which may then prove it dead at once
(``lite_common.process_key``).

Revision ID: 0018
Revises: 0017
"""

from alembic import op
import sqlalchemy as sa

revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('conductors') as batch:
        batch.add_column(
            sa.Column('incarnation', sa.String(length=36), nullable=True)
        )
        batch.add_column(
            sa.Column('process', sa.String(length=255), nullable=True)
        )
        batch.add_column(
            sa.Column('process_key', sa.String(length=255), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table('conductors') as batch:
        batch.drop_column('process_key')
        batch.drop_column('process')
        batch.drop_column('incarnation')
