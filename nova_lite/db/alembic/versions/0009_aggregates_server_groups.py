"""Host aggregates (os-aggregates) and server groups (os-server-groups)

Revision ID: 0009
Revises: 0008
"""

from alembic import op
import sqlalchemy as sa


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def _common() -> list[sa.Column]:
    """id, timestamps and the soft-delete columns every table has."""
    return [
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.Column('deleted_at', sa.DateTime(), nullable=True),
        sa.Column('deleted', sa.Integer(), nullable=False),
    ]


def _aggregates() -> None:
    op.create_table(
        'aggregates', *_common(),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_aggregates0uuid'),
        sa.UniqueConstraint('name', 'deleted',
                            name='uniq_aggregates0name0deleted'))
    op.create_table(
        'aggregate_hosts', *_common(),
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('aggregate_id', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.ForeignKeyConstraint(['aggregate_id'], ['aggregates.id'],
                                name='aggregate_hosts_aggregate_id_fkey'),
        sa.UniqueConstraint(
            'host', 'aggregate_id', 'deleted',
            name='uniq_aggregate_hosts0host0aggregate_id0deleted'))
    op.create_table(
        'aggregate_metadata', *_common(),
        sa.Column('aggregate_id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=255), nullable=False),
        sa.Column('value', sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.ForeignKeyConstraint(['aggregate_id'], ['aggregates.id'],
                                name='aggregate_metadata_aggregate_id_fkey'),
        sa.UniqueConstraint(
            'aggregate_id', 'key', 'deleted',
            name='uniq_aggregate_metadata0aggregate_id0key0deleted'))
    op.create_index('aggregate_metadata_key_idx', 'aggregate_metadata',
                    ['key'])


def _server_groups() -> None:
    op.create_table(
        'instance_groups', *_common(),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=True),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('user_id', sa.String(length=255), nullable=False),
        sa.Column('policy', sa.String(length=255), nullable=False),
        sa.Column('rules', sa.Text(), nullable=True),
        sa.Column('generation', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_instance_groups0uuid'))
    op.create_index('instance_groups_project_id_idx', 'instance_groups',
                    ['project_id'])
    op.create_table(
        'instance_group_member', *_common(),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('instance_uuid', sa.String(length=36), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.ForeignKeyConstraint(['group_id'], ['instance_groups.id'],
                                name='instance_group_member_group_id_fkey'),
        sa.UniqueConstraint(
            'group_id', 'instance_uuid', 'deleted',
            name='uniq_instance_group_member0group0instance0deleted'))
    op.create_index('instance_group_member_instance_idx',
                    'instance_group_member', ['instance_uuid'])


def upgrade() -> None:
    _aggregates()
    _server_groups()


def downgrade() -> None:
    op.drop_index('instance_group_member_instance_idx',
                  'instance_group_member')
    op.drop_table('instance_group_member')
    op.drop_index('instance_groups_project_id_idx', 'instance_groups')
    op.drop_table('instance_groups')
    op.drop_index('aggregate_metadata_key_idx', 'aggregate_metadata')
    op.drop_table('aggregate_metadata')
    op.drop_table('aggregate_hosts')
    op.drop_table('aggregates')
