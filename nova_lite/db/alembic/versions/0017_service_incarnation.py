"""Services: the incarnation (process) holding a compute host name

``incarnation`` is the random id of the nova-lite-compute process that
holds the host's compute service (NULL once it stopped cleanly, was
released by an operator, or before any agent of this release started);
``process`` says where that process runs (``pid N on MACHINE``), for the
message that refuses a second agent under the same host name;
``process_key`` identifies it for an agent on the same machine, which may
then prove it dead at once (``lite_common.process_key``).

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
    with op.batch_alter_table('services') as batch:
        batch.add_column(sa.Column('incarnation', sa.String(length=36),
                                   nullable=True))
        batch.add_column(sa.Column('process', sa.String(length=255),
                                   nullable=True))
        batch.add_column(sa.Column('process_key', sa.String(length=255),
                                   nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('services') as batch:
        batch.drop_column('process_key')
        batch.drop_column('process')
        batch.drop_column('incarnation')
