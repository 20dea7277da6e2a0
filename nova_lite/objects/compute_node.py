"""The ComputeNode object: one hypervisor node and its resources."""

from typing import TYPE_CHECKING

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.objects import base

if TYPE_CHECKING:
    from nova_lite.db import compute_nodes as db
else:
    db = base.database_module('nova_lite.db.compute_nodes')


@base.NovaLiteObjectRegistry.register
class ComputeNode(base.NovaLiteObject):
    # 1.0: first version. 1.1: get_deleted_by_uuid. 1.2: resource_class.
    # 1.3: traits.
    VERSION = '1.3'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'service_id': fields.IntegerField(nullable=True),
        'host': fields.StringField(),
        'hypervisor_hostname': fields.StringField(),
        'hypervisor_type': fields.StringField(),
        'hypervisor_version': fields.IntegerField(default=0),
        'host_ip': fields.StringField(nullable=True),
        'vcpus': fields.IntegerField(default=0),
        'memory_mb': fields.IntegerField(default=0),
        'local_gb': fields.IntegerField(default=0),
        'vcpus_used': fields.IntegerField(default=0),
        'memory_mb_used': fields.IntegerField(default=0),
        'local_gb_used': fields.IntegerField(default=0),
        'running_vms': fields.IntegerField(default=0),
        'cpu_allocation_ratio': fields.FloatField(default=1.0),
        'ram_allocation_ratio': fields.FloatField(default=1.0),
        'disk_allocation_ratio': fields.FloatField(default=1.0),
        'resource_class': fields.StringField(nullable=True),
        'traits': fields.ListOfStringsField(nullable=True),
        **base.TIMESTAMP_FIELDS,
        **base.SOFT_DELETE_FIELDS,
    }

    @classmethod
    @ovo_base.remotable
    def get_by_uuid(cls, context: RequestContext, uuid: str) -> 'ComputeNode':
        return cls._from_db(context, db.compute_node_get(context, uuid=uuid))

    @classmethod
    @ovo_base.remotable
    def get_deleted_by_uuid(
        cls, context: RequestContext, uuid: str
    ) -> 'ComputeNode':
        """The soft-deleted node of that uuid (its service was deleted
        while the agent was away); ComputeNodeNotFound without one."""
        return cls._from_db(
            context, db.compute_node_get_deleted(context, uuid)
        )

    @classmethod
    @ovo_base.remotable
    def get_by_id(cls, context: RequestContext, node_id: int) -> 'ComputeNode':
        return cls._from_db(context, db.compute_node_get(context, id=node_id))

    @classmethod
    @ovo_base.remotable
    def get_by_host_and_nodename(
        cls, context: RequestContext, host: str, nodename: str
    ) -> 'ComputeNode':
        return cls._from_db(
            context,
            db.compute_node_get(
                context, host=host, hypervisor_hostname=nodename
            ),
        )

    @ovo_base.remotable
    def create(self) -> None:
        """Create the record; the uuid must be supplied by the caller."""
        if 'uuid' not in self.obj_what_changed():
            raise exception.ObjectActionError(
                action='create',
                reason='a compute node is created with its uuid',
            )
        values = self.obj_get_changes()
        self._load_from_db(db.compute_node_create(self._context, values))

    @ovo_base.remotable
    def save(self) -> None:
        values = self.obj_get_changes()
        if values:
            self._load_from_db(
                db.compute_node_update(self._context, self.id, values)
            )

    @ovo_base.remotable
    def refresh_usage(self) -> None:
        """Recompute usage from the instances placed on this node."""
        self._load_from_db(
            db.compute_node_refresh_usage(self._context, self.id)
        )

    @ovo_base.remotable
    def destroy(self) -> None:
        db.compute_node_destroy(self._context, self.id)


@base.NovaLiteObjectRegistry.register
class ComputeNodeList(base.NovaLiteObjectList, base.NovaLiteObject):
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('ComputeNode')}

    @classmethod
    @ovo_base.remotable
    def get_all(cls, context: RequestContext) -> 'ComputeNodeList':
        return cls._from_rows(
            context, ComputeNode, db.compute_node_get_all(context)
        )

    @classmethod
    @ovo_base.remotable
    def get_by_service_id(
        cls, context: RequestContext, service_id: int
    ) -> 'ComputeNodeList':
        """The nodes of a service, by the integer link."""
        return cls._from_rows(
            context,
            ComputeNode,
            db.compute_node_get_all(context, service_id=service_id),
        )

    @classmethod
    @ovo_base.remotable
    def get_all_by_host(
        cls, context: RequestContext, host: str
    ) -> 'ComputeNodeList':
        return cls._from_rows(
            context, ComputeNode, db.compute_node_get_all(context, host=host)
        )
