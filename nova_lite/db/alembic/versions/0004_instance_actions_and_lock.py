"""Instance actions and their events; the lock of an instance

Revision ID: 0004
Revises: 0003
"""

from alembic import op
import sqlalchemy as sa


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('locked', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('locked_by', sa.String(length=255),
                                   nullable=True))
    op.create_table(
        'instance_actions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('action', sa.String(length=255), nullable=False),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.Column('request_id', sa.String(length=255), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=True),
        sa.Column('start_time', sa.DateTime(), nullable=True),
        sa.Column('finish_time', sa.DateTime(), nullable=True),
        sa.Column('message', sa.String(length=255), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('instance_uuid', 'request_id',
                            name='uniq_instance_actions0uuid0request_id'))
    op.create_index('instance_actions_instance_uuid_updated_at_idx',
                    'instance_actions', ['instance_uuid', 'updated_at'])
    op.create_table(
        'instance_actions_events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('action_id', sa.Integer(), nullable=False),
        sa.Column('event', sa.String(length=255), nullable=False),
        sa.Column('result', sa.String(length=255), nullable=True),
        sa.Column('traceback', sa.Text(), nullable=True),
        sa.Column('start_time', sa.DateTime(), nullable=True),
        sa.Column('finish_time', sa.DateTime(), nullable=True),
        sa.Column('host', sa.String(length=255), nullable=True),
        sa.Column('details', sa.Text(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.ForeignKeyConstraint(['action_id'], ['instance_actions.id'],
                                name='instance_actions_events_action_fkey'),
        sa.UniqueConstraint('action_id', 'event',
                            name='uniq_instance_actions_events0action0event'))


def downgrade() -> None:
    op.drop_table('instance_actions_events')
    op.drop_index('instance_actions_instance_uuid_updated_at_idx',
                  'instance_actions')
    op.drop_table('instance_actions')
    with op.batch_alter_table('instances') as batch:
        batch.drop_column('locked_by')
        batch.drop_column('locked')
