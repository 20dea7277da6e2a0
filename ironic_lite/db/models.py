"""SQLAlchemy models of the ironic_lite database.

``nodes.reservation`` names the conductor holding a node's lock; it is
set and cleared by single conditional UPDATE statements (see
:mod:`ironic_lite.db.node_locks`); ``nodes.revision`` counts the writes
of a node, for the conditional writes of :mod:`ironic_lite.db.nodes`.
``conductors`` records which conductor is alive and which hardware
types it loads, for the hash ring and for
taking over the nodes of a dead conductor.
"""

import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from lite_common.db import JSONText
from lite_common.db import TimestampMixin
from lite_common.db import utcnow


class Base(orm.DeclarativeBase):
    pass


class Node(Base, TimestampMixin):
    __tablename__ = 'nodes'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
        sa.UniqueConstraint('name', name='uniq_nodes0name'),
        sa.UniqueConstraint('instance_uuid', name='uniq_nodes0instance_uuid'),
        sa.Index('nodes_provision_state_idx', 'provision_state'),
        sa.Index('nodes_reservation_idx', 'reservation'),
        sa.Index('nodes_maintenance_idx', 'maintenance'),
        sa.Index('nodes_conductor_group_idx', 'conductor_group'),
        sa.Index('nodes_owner_idx', 'owner'),
        sa.Index('nodes_lessee_idx', 'lessee'),
        sa.Index('nodes_allocation_id_idx', 'allocation_id'),
        sa.Index('nodes_shard_idx', 'shard'),
        sa.Index('nodes_parent_node_idx', 'parent_node'),
        sa.Index('nodes_chassis_id_idx', 'chassis_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    driver: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    power_interface: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    management_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    deploy_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    # Added by migration 0012: the node's allocation (API 1.52); no
    # foreign key (allocations.node_id has it, written together).
    allocation_id: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    # Added by migration 0011: the other interfaces.
    boot_interface: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    network_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    bios_interface: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    console_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    firmware_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    inspect_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    raid_interface: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    rescue_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    storage_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    vendor_interface: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    console_enabled: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, server_default=sa.false()
    )
    driver_info: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    driver_internal_info: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    properties: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    instance_uuid: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    instance_info: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    power_state: orm.Mapped[str | None] = orm.mapped_column(sa.String(15))
    target_power_state: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(15)
    )
    provision_state: orm.Mapped[str] = orm.mapped_column(
        sa.String(15), default='enroll'
    )
    target_provision_state: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(15)
    )
    provision_updated_at: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(sa.DateTime)
    )
    last_error: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    maintenance: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False
    )
    maintenance_reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    fault: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    clean_step: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    # None: follow [conductor]automated_clean.
    automated_clean: orm.Mapped[bool | None] = orm.mapped_column(sa.Boolean)
    # The hostname of the conductor holding the node lock.
    reservation: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    conductor_affinity: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    # Added by migration 0002 (Bare Metal API fields).
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    extra: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    resource_class: orm.Mapped[str | None] = orm.mapped_column(sa.String(80))
    # Added by migration 0003: incremented by every write of the node's
    # fields (not by taking or releasing its lock), so that a write
    # based on what was read can be made conditional on nothing having
    # changed since (see ironic_lite.db.nodes.node_update).
    revision: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    # Added by migration 0004: the chassis the node is in (API 1.1).
    chassis_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('chassis.id', name='fk_nodes0chassis_id')
    )
    # Added by migration 0006 (Bare Metal API fields up to 1.115).
    # '' is the default conductor group (upstream's): the hash ring
    # routes the node to the conductors of its group only.
    conductor_group: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), default='', server_default=''
    )
    protected: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, server_default=sa.false()
    )
    protected_reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    retired: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, server_default=sa.false()
    )
    retired_reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    lessee: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    shard: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    parent_node: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    inspection_started_at: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(sa.DateTime)
    )
    inspection_finished_at: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(sa.DateTime)
    )
    boot_mode: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    secure_boot: orm.Mapped[bool | None] = orm.mapped_column(sa.Boolean)
    instance_name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    disable_power_off: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, server_default=sa.false()
    )
    health: orm.Mapped[str | None] = orm.mapped_column(sa.String(32))
    deploy_step: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    service_step: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    raid_config: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    target_raid_config: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    network_data: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )


#: Every column of a node.
NODE_COLUMNS = frozenset(Node.__table__.columns.keys())
#: The dictionary columns of a node (never None in a conductor's task).
NODE_DICT_COLUMNS = frozenset(
    {
        'properties',
        'driver_info',
        'driver_internal_info',
        'instance_info',
        'clean_step',
        'extra',
        'deploy_step',
        'service_step',
        'raid_config',
        'target_raid_config',
        'network_data',
    }
)


class Conductor(Base, TimestampMixin):
    __tablename__ = 'conductors'
    __table_args__ = (
        sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    hostname: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    online: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=True)
    hardware_types: orm.Mapped[list[str]] = orm.mapped_column(
        JSONText, default=list
    )
    heartbeat_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow
    )
    # Added by migration 0006: [conductor]conductor_group.
    conductor_group: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), default='', server_default=''
    )
    # Added by migration 0011: hardware type -> interface type ->
    # {'enabled': [names], 'default': name}.
    hardware_interfaces: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    # Added by migration 0018: the conductor process holding the host
    # name (ironic_lite.common.conductor_identity); NULL once released.
    incarnation: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    process: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # Its lite_common.process_key (boot/pid namespace/pid/start time):
    # a process on the same machine may prove it dead at once.
    process_key: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))


# Added by migration 0009: volume connectors and targets of a node
# (removed with it), and the node's history of events.


class VolumeConnector(Base, TimestampMixin):
    __tablename__ = 'volume_connectors'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_volumeconnectors0uuid'),
        sa.UniqueConstraint(
            'type',
            'connector_id',
            name='uniq_volumeconnectors0type0connector_id',
        ),
        sa.Index('volume_connectors_node_id_idx', 'node_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='fk_volume_connectors0node_id')
    )
    type: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    connector_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    extra: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )


class VolumeTarget(Base, TimestampMixin):
    __tablename__ = 'volume_targets'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_volumetargets0uuid'),
        sa.UniqueConstraint(
            'node_id',
            'boot_index',
            name='uniq_volumetargets0node_id0boot_index',
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='fk_volume_targets0node_id')
    )
    volume_type: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    properties: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    boot_index: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    volume_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    extra: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )


class NodeHistory(Base, TimestampMixin):
    __tablename__ = 'node_history'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_history0uuid'),
        sa.Index('history_node_id_idx', 'node_id'),
        sa.Index('history_conductor_idx', 'conductor'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='fk_node_history0node_id')
    )
    conductor: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    event_type: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    severity: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    event: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    user: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    project: orm.Mapped[str | None] = orm.mapped_column(sa.String(80))
    state: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    target_provision_state: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    duration_seconds: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)


# Added by migration 0007: the traits of a node (API 1.37), removed
# with it.


class NodeTrait(Base, TimestampMixin):
    __tablename__ = 'node_traits'
    __table_args__ = (sa.Index('node_traits_idx', 'trait'),)

    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='fk_node_traits0node_id'),
        primary_key=True,
    )
    trait: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), primary_key=True
    )


# Added by migration 0011: the BIOS settings of a node (API 1.40, the
# registry fields 1.74), deleted with it.


class BIOSSetting(Base, TimestampMixin):
    __tablename__ = 'bios_settings'

    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='fk_bios_settings0node_id'),
        primary_key=True,
    )
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), primary_key=True)
    value: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    attribute_type: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    allowable_values: orm.Mapped[list[Any] | None] = orm.mapped_column(
        JSONText
    )
    lower_bound: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    max_length: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    min_length: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    read_only: orm.Mapped[bool | None] = orm.mapped_column(sa.Boolean)
    reset_required: orm.Mapped[bool | None] = orm.mapped_column(sa.Boolean)
    unique: orm.Mapped[bool | None] = orm.mapped_column(sa.Boolean)
    upper_bound: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)


# Added by migration 0015: firmware components (API 1.86, 1.114).


class FirmwareComponent(Base, TimestampMixin):
    __tablename__ = 'firmware_information'
    __table_args__ = (
        sa.UniqueConstraint(
            'node_id',
            'component',
            name='uniq_firmware_information0node_id0component',
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='fk_firmware_information0node_id')
    )
    component: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    initial_version: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    current_version: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    last_version_flashed: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    vendor: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    model: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    serial_number: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))


# Added by migration 0004: chassis (API 1.1), groups of nodes.


class Chassis(Base, TimestampMixin):
    __tablename__ = 'chassis'
    __table_args__ = (sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'),)

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    extra: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )


# Added by migration 0010: the network ports of a node (API 1.1) and
# their groups (API 1.23), removed with it.


class Portgroup(Base, TimestampMixin):
    __tablename__ = 'portgroups'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
        sa.UniqueConstraint('address', name='uniq_portgroups0address'),
        sa.UniqueConstraint('name', name='uniq_portgroups0name'),
        sa.Index('portgroups_node_id_idx', 'node_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='fk_portgroups0node_id')
    )
    address: orm.Mapped[str | None] = orm.mapped_column(sa.String(18))
    extra: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    internal_info: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    standalone_ports_supported: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=True
    )
    mode: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    properties: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    physical_network: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    category: orm.Mapped[str | None] = orm.mapped_column(sa.String(80))
    dynamic_portgroup: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False
    )


class Port(Base, TimestampMixin):
    __tablename__ = 'ports'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
        sa.UniqueConstraint('address', name='uniq_ports0address'),
        sa.UniqueConstraint('name', name='uniq_ports0name'),
        sa.Index('ports_node_id_idx', 'node_id'),
        sa.Index('ports_portgroup_id_idx', 'portgroup_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    address: orm.Mapped[str] = orm.mapped_column(sa.String(18))
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='fk_ports0node_id')
    )
    portgroup_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('portgroups.id', name='fk_ports0portgroup_id')
    )
    extra: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    local_link_connection: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    internal_info: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    pxe_enabled: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=True)
    physical_network: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    is_smartnic: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False
    )
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    vendor: orm.Mapped[str | None] = orm.mapped_column(sa.String(32))
    category: orm.Mapped[str | None] = orm.mapped_column(sa.String(80))
    available_for_dynamic_portgroup: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=True
    )


# Added by migration 0012: allocations (API 1.52).


class Allocation(Base, TimestampMixin):
    __tablename__ = 'allocations'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_allocations0uuid'),
        sa.UniqueConstraint('name', name='uniq_allocations0name'),
        sa.Index('allocations_state_idx', 'state'),
        sa.Index('allocations_node_id_idx', 'node_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    node_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='fk_allocations0node_id')
    )
    # allocating, active or error.
    state: orm.Mapped[str] = orm.mapped_column(sa.String(15))
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    last_error: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    resource_class: orm.Mapped[str | None] = orm.mapped_column(sa.String(80))
    traits: orm.Mapped[list[str]] = orm.mapped_column(JSONText, default=list)
    candidate_nodes: orm.Mapped[list[str]] = orm.mapped_column(
        JSONText, default=list
    )
    extra: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    # The conductor that processes it while allocating (its hostname).
    conductor_affinity: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )


# Added by migration 0013: deploy templates (API 1.55).


class DeployTemplate(Base, TimestampMixin):
    __tablename__ = 'deploy_templates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_deploytemplates0uuid'),
        sa.UniqueConstraint('name', name='uniq_deploytemplates0name'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    extra: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )


class DeployTemplateStep(Base, TimestampMixin):
    __tablename__ = 'deploy_template_steps'
    __table_args__ = (sa.Index('deploy_template_id', 'deploy_template_id'),)

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    deploy_template_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey(
            'deploy_templates.id',
            name='fk_deploy_template_steps0deploy_template_id',
        )
    )
    interface: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    step: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    args: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    priority: orm.Mapped[int] = orm.mapped_column(sa.Integer)


# Added by migration 0014: what the last inspection of a node found
# (API 1.81), deleted with it.


class NodeInventory(Base, TimestampMixin):
    __tablename__ = 'node_inventory'
    __table_args__ = (
        sa.UniqueConstraint('node_id', name='uniq_node_inventory0node_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', name='fk_node_inventory0node_id')
    )
    inventory_data: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    plugin_data: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )


# Added by migration 0016: runbooks (API 1.92), their steps, and the
# traits that allow a node to run one (1.112).


class Runbook(Base, TimestampMixin):
    __tablename__ = 'runbooks'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_runbooks0uuid'),
        sa.UniqueConstraint('name', name='uniq_runbooks0name'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    public: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    disable_ramdisk: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False
    )
    extra: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )


class RunbookStep(Base, TimestampMixin):
    __tablename__ = 'runbook_steps'
    __table_args__ = (sa.Index('runbook_id', 'runbook_id'),)

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    runbook_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('runbooks.id', name='fk_runbook_steps0runbook_id')
    )
    interface: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    step: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    args: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    order: orm.Mapped[int] = orm.mapped_column(sa.Integer)


class RunbookTrait(Base, TimestampMixin):
    __tablename__ = 'runbook_traits'
    __table_args__ = (sa.Index('runbook_traits_idx', 'trait'),)

    runbook_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('runbooks.id', name='fk_runbook_traits0runbook_id'),
        primary_key=True,
    )
    trait: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), primary_key=True
    )


class InspectionRule(Base, TimestampMixin):
    __tablename__ = 'inspection_rules'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_inspection_rules0uuid'),
        sa.Index('inspection_rule_phase_idx', 'phase'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    priority: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    sensitive: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)
    phase: orm.Mapped[str] = orm.mapped_column(sa.String(16), default='main')
    conditions: orm.Mapped[list[dict[str, Any]]] = orm.mapped_column(
        JSONText, default=list
    )
    actions: orm.Mapped[list[dict[str, Any]]] = orm.mapped_column(JSONText)
