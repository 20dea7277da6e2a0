"""SQLAlchemy models of the nova_lite database.

Records are linked by integer ids: ``compute_nodes.service_id``,
``instances.compute_id`` and ``migrations.dest_compute_id``. Host and
node strings remain for display and RPC routing.
"""

import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from lite_common.db import JSONText
from lite_common.db import SoftDeleteMixin
from lite_common.db import TimestampMixin


class Base(orm.DeclarativeBase):
    pass


class Service(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = 'services'
    __table_args__ = (
        sa.UniqueConstraint(
            'host',
            'binary',
            'deleted',
            name='uniq_services0host0binary0deleted',
        ),
        sa.UniqueConstraint('uuid', name='uniq_services0uuid'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    host: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    binary: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    topic: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    disabled: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)
    disabled_reason: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    forced_down: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False
    )
    last_seen_up: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime
    )
    report_count: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    version: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    # The compute agent process holding the host name (0017): a fresh id
    # per process start, and where it runs. See db/service_identity.py.
    incarnation: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    process: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    process_key: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))


class ComputeNode(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = 'compute_nodes'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_compute_nodes0uuid'),
        sa.UniqueConstraint(
            'host',
            'hypervisor_hostname',
            'deleted',
            name='uniq_compute_nodes0host0hypervisor_hostname0deleted',
        ),
        sa.Index('compute_nodes_service_id_idx', 'service_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    service_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('services.id', name='compute_nodes_service_id_fkey')
    )
    host: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    hypervisor_hostname: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    hypervisor_type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    hypervisor_version: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, default=0
    )
    host_ip: orm.Mapped[str | None] = orm.mapped_column(sa.String(39))
    vcpus: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    memory_mb: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    local_gb: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    vcpus_used: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    memory_mb_used: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    local_gb_used: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    running_vms: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    cpu_allocation_ratio: orm.Mapped[float] = orm.mapped_column(
        sa.Float, default=1.0
    )
    ram_allocation_ratio: orm.Mapped[float] = orm.mapped_column(
        sa.Float, default=1.0
    )
    disk_allocation_ratio: orm.Mapped[float] = orm.mapped_column(
        sa.Float, default=1.0
    )
    # A node that is one whole machine (bare metal): the resource class a
    # flavor asks for (``resources:CUSTOM_<CLASS>=1``); it takes one
    # instance of that class and nothing else. NULL for hypervisors and
    # for machines that cannot take an instance now.
    resource_class: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # The traits the node has (a JSON list of names, e.g. a bare metal
    # node's ``CUSTOM_GOLD``): a flavor's ``trait:<NAME>=required``
    # lands only where it is listed, ``forbidden`` only where it is not.
    traits: orm.Mapped[list[str] | None] = orm.mapped_column(JSONText)


class Flavor(Base, TimestampMixin):
    __tablename__ = 'flavors'
    __table_args__ = (
        sa.UniqueConstraint('flavorid', name='uniq_flavors0flavorid'),
        sa.UniqueConstraint('name', name='uniq_flavors0name'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    flavorid: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    vcpus: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    memory_mb: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    root_gb: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    ephemeral_gb: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    swap: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    rxtx_factor: orm.Mapped[float] = orm.mapped_column(sa.Float, default=1.0)
    is_public: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=True)
    disabled: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    extra_specs: orm.Mapped[dict[str, str]] = orm.mapped_column(
        JSONText, default=dict
    )


class FlavorProject(Base):
    """A project that sees a private flavor (os-flavor-access)."""

    __tablename__ = 'flavor_projects'
    __table_args__ = (
        sa.UniqueConstraint(
            'flavor_id',
            'project_id',
            name='uniq_flavor_projects0flavor_id0project_id',
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    flavor_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('flavors.id', name='flavor_projects_flavor_id_fkey')
    )
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))


class Instance(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = 'instances'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_instances0uuid'),
        sa.Index('instances_project_id_deleted_idx', 'project_id', 'deleted'),
        sa.Index('instances_host_deleted_idx', 'host', 'deleted'),
        sa.Index('instances_compute_id_deleted_idx', 'compute_id', 'deleted'),
        sa.Index(
            'instances_instance_type_id_deleted_idx',
            'instance_type_id',
            'deleted',
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    display_name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # The server's host name (upstream's; given from API 2.90, else
    # derived from the display name).
    hostname: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    display_description: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    user_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    image_ref: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    flavor: orm.Mapped[dict[str, Any]] = orm.mapped_column(JSONText)
    # The flavors a resize or cold migration moves between, until it is
    # confirmed or reverted (NULL otherwise).
    old_flavor: orm.Mapped[dict[str, Any] | None] = orm.mapped_column(JSONText)
    new_flavor: orm.Mapped[dict[str, Any] | None] = orm.mapped_column(JSONText)
    # flavors.id of ``flavor`` (NULL when that flavor no longer exists),
    # kept by the database layer whenever ``flavor`` is written.
    instance_type_id: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    vcpus: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    memory_mb: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    root_gb: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    vm_state: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    task_state: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    power_state: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    host: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    node: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    compute_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('compute_nodes.id', name='instances_compute_id_fkey')
    )
    availability_zone: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    # The zone asked for at create or by an unshelve (upstream's request
    # spec availability_zone): moves stay in it; NULL: anywhere.
    pinned_availability_zone: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    key_name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    config_drive: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # What a config drive holds besides metadata: the user data (base64,
    # as given) and the public key of ``key_name`` at creation (or the
    # last rebuild naming a key), as upstream keeps them.
    user_data: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    key_data: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    access_ip_v4: orm.Mapped[str | None] = orm.mapped_column(sa.String(39))
    access_ip_v6: orm.Mapped[str | None] = orm.mapped_column(sa.String(39))
    metadata_: orm.Mapped[dict[str, str]] = orm.mapped_column(
        'metadata', JSONText, default=dict
    )
    fault: orm.Mapped[dict[str, Any] | None] = orm.mapped_column(JSONText)
    launched_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime
    )
    terminated_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime
    )
    # Locked (os-lock): only administrators act on the server; by whom
    # ('owner' or 'admin', as upstream), so that an owner's lock is the
    # owner's to lift.
    locked: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, server_default=sa.false()
    )
    locked_by: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    locked_reason: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # What the services keep about an instance for themselves (upstream's
    # system_metadata), e.g. the image and time of a shelve.
    system_metadata: orm.Mapped[dict[str, str] | None] = orm.mapped_column(
        JSONText, default=dict
    )
    # The scheduler hints given at create, as upstream's request spec
    # keeps them: a dict of lists of strings (NULL: a server from before
    # they were kept).
    scheduler_hints: orm.Mapped[dict[str, list[str]] | None] = (
        orm.mapped_column(JSONText)
    )


class KeyPair(Base, TimestampMixin, SoftDeleteMixin):
    """A user's SSH public key (or X.509 certificate), by name."""

    __tablename__ = 'key_pairs'
    __table_args__ = (
        sa.UniqueConstraint(
            'user_id',
            'name',
            'deleted',
            name='uniq_key_pairs0user_id0name0deleted',
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    user_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    fingerprint: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    public_key: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    type: orm.Mapped[str] = orm.mapped_column(
        sa.String(10), default='ssh', server_default='ssh'
    )


class Tag(Base):
    """A tag of a server (``resource_id``: its uuid)."""

    __tablename__ = 'tags'
    __table_args__ = (sa.Index('tags_tag_idx', 'tag'),)

    resource_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36), primary_key=True
    )
    tag: orm.Mapped[str] = orm.mapped_column(sa.String(80), primary_key=True)


class InstanceAction(Base, TimestampMixin):
    """One request that acted on an instance (os-instance-actions)."""

    __tablename__ = 'instance_actions'
    __table_args__ = (
        sa.UniqueConstraint(
            'instance_uuid',
            'request_id',
            name='uniq_instance_actions0uuid0request_id',
        ),
        sa.Index(
            'instance_actions_instance_uuid_updated_at_idx',
            'instance_uuid',
            'updated_at',
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    action: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    instance_uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    request_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    user_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    start_time: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime
    )
    finish_time: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime
    )
    message: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))


class InstanceActionEvent(Base, TimestampMixin):
    """One step of an action, where it ran and how it ended."""

    __tablename__ = 'instance_actions_events'
    __table_args__ = (
        sa.UniqueConstraint(
            'action_id',
            'event',
            name='uniq_instance_actions_events0action0event',
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    action_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey(
            'instance_actions.id', name='instance_actions_events_action_fkey'
        )
    )
    event: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    result: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    traceback: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    start_time: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime
    )
    finish_time: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime
    )
    host: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    details: orm.Mapped[str | None] = orm.mapped_column(sa.Text)


class Migration(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = 'migrations'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_migrations0uuid'),
        sa.Index('migrations_instance_uuid_idx', 'instance_uuid'),
        sa.Index(
            'migrations_source_compute_type_status_idx',
            'source_compute',
            'migration_type',
            'status',
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    instance_uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    source_compute: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    source_node: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    dest_compute: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    dest_node: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    dest_host: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    dest_compute_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey(
            'compute_nodes.id', name='migrations_dest_compute_id_fkey'
        )
    )
    migration_type: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    status: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    old_flavor_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    new_flavor_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    user_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    hidden: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)
    # An evacuation's end state: 'stopped' from API 2.95, else NULL.
    target_state: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    # An evacuation to a forced host (not held to the zone).
    forced: orm.Mapped[bool | None] = orm.mapped_column(sa.Boolean)
    # A cold move's hosts that refused its claim (a JSON list; another
    # destination is chosen without them); NULL: the destination was
    # asked for by name, so no other is tried.
    refused_hosts: orm.Mapped[list[str] | None] = orm.mapped_column(JSONText)


class Image(Base, TimestampMixin):
    """The image catalog behind the Image API v2 subset; an image's
    data is a file of ``[image_store]directory`` (see
    :mod:`nova_lite.compute_api.image_data`)."""

    __tablename__ = 'images'
    __table_args__ = (sa.Index('images_name_idx', 'name'),)

    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    status: orm.Mapped[str] = orm.mapped_column(sa.String(30))
    visibility: orm.Mapped[str] = orm.mapped_column(sa.String(20))
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    disk_format: orm.Mapped[str | None] = orm.mapped_column(sa.String(20))
    container_format: orm.Mapped[str | None] = orm.mapped_column(sa.String(20))
    min_disk: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    min_ram: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    size: orm.Mapped[int | None] = orm.mapped_column(sa.BigInteger)
    #: MD5 of the data (hex), as Glance's ``checksum``.
    checksum: orm.Mapped[str | None] = orm.mapped_column(sa.String(32))
    os_hash_algo: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    os_hash_value: orm.Mapped[str | None] = orm.mapped_column(sa.String(128))
    protected: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)
    tags: orm.Mapped[list[str]] = orm.mapped_column(JSONText, default=list)
    properties: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )


class Quota(Base, TimestampMixin):
    """A project's limit of one resource, set by an administrator
    (``[quota]`` gives the default of a resource without a row)."""

    __tablename__ = 'quotas'
    __table_args__ = (
        sa.UniqueConstraint(
            'project_id', 'resource', name='uniq_quotas0project_id0resource'
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    resource: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    hard_limit: orm.Mapped[int] = orm.mapped_column(sa.Integer)


class ProjectQuotaLock(Base):
    """One row per project: a quota check updates it first, so checks
    of one project (count, then insert) run one after another on every
    backend."""

    __tablename__ = 'project_quota_locks'

    project_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), primary_key=True
    )
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)


class Aggregate(Base, TimestampMixin, SoftDeleteMixin):
    """A host aggregate; its ``availability_zone`` metadata names the
    zone of its hosts."""

    __tablename__ = 'aggregates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_aggregates0uuid'),
        sa.UniqueConstraint(
            'name', 'deleted', name='uniq_aggregates0name0deleted'
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))


class AggregateHost(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = 'aggregate_hosts'
    __table_args__ = (
        sa.UniqueConstraint(
            'host',
            'aggregate_id',
            'deleted',
            name='uniq_aggregate_hosts0host0aggregate_id0deleted',
        ),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    host: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    aggregate_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey(
            'aggregates.id', name='aggregate_hosts_aggregate_id_fkey'
        )
    )


class AggregateMetadata(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = 'aggregate_metadata'
    __table_args__ = (
        sa.UniqueConstraint(
            'aggregate_id',
            'key',
            'deleted',
            name='uniq_aggregate_metadata0aggregate_id0key0deleted',
        ),
        sa.Index('aggregate_metadata_key_idx', 'key'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    aggregate_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey(
            'aggregates.id', name='aggregate_metadata_aggregate_id_fkey'
        )
    )
    key: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    value: orm.Mapped[str] = orm.mapped_column(sa.String(255))


class InstanceGroup(Base, TimestampMixin, SoftDeleteMixin):
    """A server group. A placement of a member first bumps
    ``generation``: member claims of one group run one at a time."""

    __tablename__ = 'instance_groups'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_instance_groups0uuid'),
        sa.Index('instance_groups_project_id_idx', 'project_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    user_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    policy: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    rules: orm.Mapped[dict[str, Any] | None] = orm.mapped_column(JSONText)
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)


class InstanceGroupMember(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = 'instance_group_member'
    __table_args__ = (
        sa.UniqueConstraint(
            'group_id',
            'instance_uuid',
            'deleted',
            name='uniq_instance_group_member0group0instance0deleted',
        ),
        sa.Index('instance_group_member_instance_idx', 'instance_uuid'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    group_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey(
            'instance_groups.id', name='instance_group_member_group_id_fkey'
        )
    )
    instance_uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36))
