"""Instances: the availability zone they are pinned to; migrations: the
state an evacuation ends in

``instances.pinned_availability_zone`` is the zone the user asked for
at create (or ``[DEFAULT]default_schedule_zone``), or set by an
unshelve (2.77 / 2.91): what upstream keeps as its request spec's
``availability_zone``. Moves and unshelves stay in it; ``NULL`` means
anywhere. ``availability_zone`` stays the zone of the current host.
Existing instances are pinned to their current zone (which of them
were created in a requested zone cannot be told any more; pinning never
lets a move leave a zone the user asked for).

``migrations.target_state``: ``stopped`` for an evacuation requested
with API 2.95 or later (the instance ends SHUTOFF on its destination),
``NULL`` otherwise (it keeps its state, as before). ``migrations.forced``:
an evacuation to a forced host (not held to the zone), so that one
driven again after a lost request keeps to it.

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
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('pinned_availability_zone',
                                   sa.String(length=255), nullable=True))
    instances = sa.table('instances',
                         sa.column('availability_zone', sa.String),
                         sa.column('pinned_availability_zone', sa.String))
    op.execute(instances.update().values(
        pinned_availability_zone=instances.c.availability_zone))
    with op.batch_alter_table('migrations') as batch:
        batch.add_column(sa.Column('target_state', sa.String(length=36),
                                   nullable=True))
        batch.add_column(sa.Column('forced', sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('migrations') as batch:
        batch.drop_column('forced')
        batch.drop_column('target_state')
    with op.batch_alter_table('instances') as batch:
        batch.drop_column('pinned_availability_zone')
