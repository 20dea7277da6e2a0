"""Security groups, their rules, each project's default group and the
groups of ports

Revision ID: 0002
Revises: 0001
"""

from alembic import op
import sqlalchemy as sa

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column('revision_number', sa.BigInteger(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        'security_groups',
        sa.Column('id', sa.String(36), nullable=False),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.String(255), nullable=False),
        *_timestamps(),
        sa.Column('stateful', sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(
        'ix_security_groups_project_id', 'security_groups', ['project_id']
    )
    op.create_table(
        'default_security_groups',
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('security_group_id', sa.String(36), nullable=False),
        sa.ForeignKeyConstraint(
            ['security_group_id'], ['security_groups.id'], ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('project_id'),
    )
    op.create_table(
        'security_group_rules',
        sa.Column('id', sa.String(36), nullable=False),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('security_group_id', sa.String(36), nullable=False),
        sa.Column('direction', sa.String(16), nullable=False),
        sa.Column('ethertype', sa.String(8), nullable=False),
        sa.Column('protocol', sa.String(40), nullable=True),
        sa.Column('port_range_min', sa.Integer(), nullable=True),
        sa.Column('port_range_max', sa.Integer(), nullable=True),
        sa.Column('remote_ip_prefix', sa.String(64), nullable=True),
        sa.Column('remote_group_id', sa.String(36), nullable=True),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('fingerprint', sa.String(255), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(
            ['security_group_id'], ['security_groups.id'], ondelete='CASCADE'
        ),
        sa.ForeignKeyConstraint(
            ['remote_group_id'], ['security_groups.id'], ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'security_group_id',
            'fingerprint',
            name='uniq_security_group_rules0group0fingerprint',
        ),
    )
    op.create_index(
        'ix_security_group_rules_project_id',
        'security_group_rules',
        ['project_id'],
    )
    op.create_index(
        'ix_security_group_rules_security_group_id',
        'security_group_rules',
        ['security_group_id'],
    )
    op.create_table(
        'port_security_group_bindings',
        sa.Column('port_id', sa.String(36), nullable=False),
        sa.Column('security_group_id', sa.String(36), nullable=False),
        sa.ForeignKeyConstraint(['port_id'], ['ports.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['security_group_id'], ['security_groups.id']),
        sa.PrimaryKeyConstraint('port_id', 'security_group_id'),
    )


def downgrade() -> None:
    for table in (
        'port_security_group_bindings',
        'security_group_rules',
        'default_security_groups',
        'security_groups',
    ):
        op.drop_table(table)
