"""Instances: ``hostname``, the server's host name (Compute API 2.90)

Revision ID: 0012
Revises: 0011

Upstream stores the host name of every instance, derived from the
display name when none was asked for; the rows from before this column
get that same derived name here (their display names already carry
the ``-<n>`` of a multiple create), so every instance has one and the
API renders stored values only.
"""

from alembic import op
import sqlalchemy as sa

from nova_lite.common import hostnames

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def _backfill() -> None:
    conn = op.get_bind()
    rows = conn.execute(sa.text(
        'SELECT id, uuid, display_name FROM instances')).all()
    update = sa.text('UPDATE instances SET hostname = :hostname '
                     'WHERE id = :id')
    for inst_id, uuid, display_name in rows:
        conn.execute(update, {'id': inst_id, 'hostname':
                              hostnames.for_server(display_name, uuid)})


def upgrade() -> None:
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('hostname', sa.String(length=255),
                                   nullable=True))
    _backfill()


def downgrade() -> None:
    with op.batch_alter_table('instances') as batch:
        batch.drop_column('hostname')
