"""SQLAlchemy models of the neutron_lite database.

Every resource has Neutron's standard attributes: a uuid ``id``,
``project_id``, ``revision_number`` (counted up by every change, checked
by ``If-Match``), timestamps, and tags (one ``tags`` table for all).

The address rule is in the schema: ``ip_allocations`` has the
primary key ``(subnet_id, ip_address)``, so that two ports can never
hold one address, whatever the interleaving of their transactions and
on every database (:mod:`neutron_lite.db.ipam` retries another address
when an insert loses). ``ports`` has one MAC per network likewise, and
``networks.segment_key`` one network per flat physical network or per
VLAN id of a physical network.
"""

import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from lite_common.db import JSONText
from lite_common.db import utcnow


class Base(orm.DeclarativeBase):
    pass


def _uuid_key() -> Any:
    return orm.mapped_column(sa.String(36), primary_key=True)


class StandardAttributes:
    """Neutron's standard attributes of every resource."""

    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(255), index=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    description: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), default=''
    )
    revision_number: orm.Mapped[int] = orm.mapped_column(
        sa.BigInteger, default=0, nullable=False
    )
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False
    )
    updated_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False
    )


class Network(Base, StandardAttributes):
    __tablename__ = 'networks'
    __table_args__ = (
        sa.UniqueConstraint('segment_key', name='uniq_networks0segment_key'),
    )

    id: orm.Mapped[str] = _uuid_key()
    admin_state_up: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=True
    )
    status: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    shared: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)
    external: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)
    mtu: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    port_security_enabled: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=True
    )
    network_type: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    physical_network: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    segmentation_id: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    #: ``flat:<physnet>`` or ``vlan:<physnet>:<id>`` (unique); NULL for
    #: a network of its own (``local``).
    segment_key: orm.Mapped[str | None] = orm.mapped_column(sa.String(128))


class Subnet(Base, StandardAttributes):
    __tablename__ = 'subnets'

    id: orm.Mapped[str] = _uuid_key()
    network_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36), sa.ForeignKey('networks.id'), index=True
    )
    ip_version: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    cidr: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    gateway_ip: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    enable_dhcp: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=True)
    ipv6_ra_mode: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    ipv6_address_mode: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(16)
    )
    #: The address pools, DNS servers and host routes, in their order.
    allocation_pools: orm.Mapped[list[dict[str, str]]] = orm.mapped_column(
        JSONText, default=list
    )
    dns_nameservers: orm.Mapped[list[str]] = orm.mapped_column(
        JSONText, default=list
    )
    host_routes: orm.Mapped[list[dict[str, str]]] = orm.mapped_column(
        JSONText, default=list
    )


class Port(Base, StandardAttributes):
    __tablename__ = 'ports'
    __table_args__ = (
        sa.UniqueConstraint(
            'network_id', 'mac_address', name='uniq_ports0network_id0mac'
        ),
        sa.Index('ports_device_id_idx', 'device_id'),
    )

    id: orm.Mapped[str] = _uuid_key()
    network_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36), sa.ForeignKey('networks.id'), index=True
    )
    mac_address: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    admin_state_up: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=True
    )
    status: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    device_id: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    device_owner: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), default=''
    )
    port_security_enabled: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=True
    )
    binding_host_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), default=''
    )
    binding_vnic_type: orm.Mapped[str] = orm.mapped_column(
        sa.String(64), default='normal'
    )
    binding_profile: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    binding_vif_type: orm.Mapped[str] = orm.mapped_column(
        sa.String(64), default='unbound'
    )
    binding_vif_details: orm.Mapped[dict[str, Any]] = orm.mapped_column(
        JSONText, default=dict
    )
    dns_name: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    allowed_address_pairs: orm.Mapped[list[dict[str, str]]] = (
        orm.mapped_column(JSONText, default=list)
    )


class IPAllocation(Base):
    """One address of one port: the primary key makes it unique."""

    __tablename__ = 'ip_allocations'

    subnet_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36), sa.ForeignKey('subnets.id'), primary_key=True
    )
    ip_address: orm.Mapped[str] = orm.mapped_column(
        sa.String(64), primary_key=True
    )
    port_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('ports.id', ondelete='CASCADE'),
        index=True,
    )
    network_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))


class Tag(Base):
    __tablename__ = 'tags'

    resource_type: orm.Mapped[str] = orm.mapped_column(
        sa.String(32), primary_key=True
    )
    resource_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36), primary_key=True
    )
    tag: orm.Mapped[str] = orm.mapped_column(sa.String(255), primary_key=True)


class SecurityGroup(Base, StandardAttributes):
    __tablename__ = 'security_groups'

    id: orm.Mapped[str] = _uuid_key()
    stateful: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=True)


class DefaultSecurityGroup(Base):
    """A project's default group: the primary key makes it one, however
    many first requests of the project race to create it."""

    __tablename__ = 'default_security_groups'

    project_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), primary_key=True
    )
    security_group_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('security_groups.id', ondelete='CASCADE'),
    )


class SecurityGroupRule(Base):
    __tablename__ = 'security_group_rules'
    __table_args__ = (
        # One rule of each meaning per group (raced creates included).
        sa.UniqueConstraint(
            'security_group_id',
            'fingerprint',
            name='uniq_security_group_rules0group0fingerprint',
        ),
    )

    id: orm.Mapped[str] = _uuid_key()
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(255), index=True)
    security_group_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('security_groups.id', ondelete='CASCADE'),
        index=True,
    )
    direction: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    ethertype: orm.Mapped[str] = orm.mapped_column(sa.String(8))
    protocol: orm.Mapped[str | None] = orm.mapped_column(sa.String(40))
    port_range_min: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    port_range_max: orm.Mapped[int | None] = orm.mapped_column(sa.Integer)
    remote_ip_prefix: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    remote_group_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('security_groups.id', ondelete='CASCADE'),
    )
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    #: What the rule means, as one string (direction, ethertype,
    #: protocol, ports, remote): equal rules have equal fingerprints.
    fingerprint: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    revision_number: orm.Mapped[int] = orm.mapped_column(
        sa.BigInteger, default=0, nullable=False
    )
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False
    )
    updated_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False
    )


class PortSecurityGroup(Base):
    __tablename__ = 'port_security_group_bindings'

    port_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('ports.id', ondelete='CASCADE'),
        primary_key=True,
    )
    security_group_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36),
        sa.ForeignKey('security_groups.id'),
        primary_key=True,
    )


class Quota(Base):
    """A project's own limit of one resource (the others: the defaults
    of ``[quotas]``)."""

    __tablename__ = 'quotas'

    project_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), primary_key=True
    )
    resource: orm.Mapped[str] = orm.mapped_column(
        sa.String(64), primary_key=True
    )
    limit: orm.Mapped[int] = orm.mapped_column(sa.Integer)
