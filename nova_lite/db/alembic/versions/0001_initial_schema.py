"""Initial schema

Revision ID: 0001
Revises: 
"""

from alembic import op
import sqlalchemy as sa


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('flavors',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('flavorid', sa.String(length=255), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('vcpus', sa.Integer(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('root_gb', sa.Integer(), nullable=False),
    sa.Column('ephemeral_gb', sa.Integer(), nullable=False),
    sa.Column('swap', sa.Integer(), nullable=False),
    sa.Column('rxtx_factor', sa.Float(), nullable=False),
    sa.Column('is_public', sa.Boolean(), nullable=False),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('extra_specs', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('flavorid', name='uniq_flavors0flavorid'),
    sa.UniqueConstraint('name', name='uniq_flavors0name')
    )
    op.create_table('images',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('status', sa.String(length=30), nullable=False),
    sa.Column('visibility', sa.String(length=20), nullable=False),
    sa.Column('owner', sa.String(length=255), nullable=True),
    sa.Column('disk_format', sa.String(length=20), nullable=True),
    sa.Column('container_format', sa.String(length=20), nullable=True),
    sa.Column('min_disk', sa.Integer(), nullable=False),
    sa.Column('min_ram', sa.Integer(), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=True),
    sa.Column('protected', sa.Boolean(), nullable=False),
    sa.Column('tags', sa.Text(), nullable=False),
    sa.Column('properties', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('images', schema=None) as batch_op:
        batch_op.create_index('images_name_idx', ['name'], unique=False)

    op.create_table('services',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('binary', sa.String(length=255), nullable=False),
    sa.Column('topic', sa.String(length=255), nullable=True),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('disabled_reason', sa.String(length=255), nullable=True),
    sa.Column('forced_down', sa.Boolean(), nullable=False),
    sa.Column('last_seen_up', sa.DateTime(), nullable=True),
    sa.Column('report_count', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('host', 'binary', 'deleted', name='uniq_services0host0binary0deleted'),
    sa.UniqueConstraint('uuid', name='uniq_services0uuid')
    )
    op.create_table('compute_nodes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('service_id', sa.Integer(), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('hypervisor_hostname', sa.String(length=255), nullable=False),
    sa.Column('hypervisor_type', sa.String(length=255), nullable=False),
    sa.Column('hypervisor_version', sa.Integer(), nullable=False),
    sa.Column('host_ip', sa.String(length=39), nullable=True),
    sa.Column('vcpus', sa.Integer(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('local_gb', sa.Integer(), nullable=False),
    sa.Column('vcpus_used', sa.Integer(), nullable=False),
    sa.Column('memory_mb_used', sa.Integer(), nullable=False),
    sa.Column('local_gb_used', sa.Integer(), nullable=False),
    sa.Column('running_vms', sa.Integer(), nullable=False),
    sa.Column('cpu_allocation_ratio', sa.Float(), nullable=False),
    sa.Column('ram_allocation_ratio', sa.Float(), nullable=False),
    sa.Column('disk_allocation_ratio', sa.Float(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['service_id'], ['services.id'], name='compute_nodes_service_id_fkey'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('host', 'hypervisor_hostname', 'deleted', name='uniq_compute_nodes0host0hypervisor_hostname0deleted'),
    sa.UniqueConstraint('uuid', name='uniq_compute_nodes0uuid')
    )
    with op.batch_alter_table('compute_nodes', schema=None) as batch_op:
        batch_op.create_index('compute_nodes_service_id_idx', ['service_id'], unique=False)

    op.create_table('instances',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('display_name', sa.String(length=255), nullable=True),
    sa.Column('display_description', sa.String(length=255), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=False),
    sa.Column('user_id', sa.String(length=255), nullable=False),
    sa.Column('image_ref', sa.String(length=255), nullable=True),
    sa.Column('flavor', sa.Text(), nullable=False),
    sa.Column('vcpus', sa.Integer(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('root_gb', sa.Integer(), nullable=False),
    sa.Column('vm_state', sa.String(length=255), nullable=False),
    sa.Column('task_state', sa.String(length=255), nullable=True),
    sa.Column('power_state', sa.Integer(), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('node', sa.String(length=255), nullable=True),
    sa.Column('compute_id', sa.Integer(), nullable=True),
    sa.Column('availability_zone', sa.String(length=255), nullable=True),
    sa.Column('key_name', sa.String(length=255), nullable=True),
    sa.Column('config_drive', sa.String(length=255), nullable=True),
    sa.Column('access_ip_v4', sa.String(length=39), nullable=True),
    sa.Column('access_ip_v6', sa.String(length=39), nullable=True),
    sa.Column('metadata', sa.Text(), nullable=False),
    sa.Column('fault', sa.Text(), nullable=True),
    sa.Column('launched_at', sa.DateTime(), nullable=True),
    sa.Column('terminated_at', sa.DateTime(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['compute_id'], ['compute_nodes.id'], name='instances_compute_id_fkey'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_instances0uuid')
    )
    with op.batch_alter_table('instances', schema=None) as batch_op:
        batch_op.create_index('instances_compute_id_deleted_idx', ['compute_id', 'deleted'], unique=False)
        batch_op.create_index('instances_host_deleted_idx', ['host', 'deleted'], unique=False)
        batch_op.create_index('instances_project_id_deleted_idx', ['project_id', 'deleted'], unique=False)

    op.create_table('migrations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('instance_uuid', sa.String(length=36), nullable=False),
    sa.Column('source_compute', sa.String(length=255), nullable=True),
    sa.Column('source_node', sa.String(length=255), nullable=True),
    sa.Column('dest_compute', sa.String(length=255), nullable=True),
    sa.Column('dest_node', sa.String(length=255), nullable=True),
    sa.Column('dest_host', sa.String(length=255), nullable=True),
    sa.Column('dest_compute_id', sa.Integer(), nullable=True),
    sa.Column('migration_type', sa.String(length=32), nullable=False),
    sa.Column('status', sa.String(length=255), nullable=False),
    sa.Column('old_flavor_id', sa.String(length=255), nullable=True),
    sa.Column('new_flavor_id', sa.String(length=255), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('hidden', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['dest_compute_id'], ['compute_nodes.id'], name='migrations_dest_compute_id_fkey'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_migrations0uuid')
    )
    with op.batch_alter_table('migrations', schema=None) as batch_op:
        batch_op.create_index('migrations_instance_uuid_idx', ['instance_uuid'], unique=False)
        batch_op.create_index('migrations_source_compute_type_status_idx', ['source_compute', 'migration_type', 'status'], unique=False)


def downgrade() -> None:
    op.drop_table('migrations')
    op.drop_table('instances')
    op.drop_table('compute_nodes')
    op.drop_table('services')
    op.drop_table('images')
    op.drop_table('flavors')
