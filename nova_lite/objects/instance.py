"""The Instance object.

``host``, ``node`` and ``compute_id`` change together: a save that
leaves them naming anything but one compute node of that host (or node
and compute_id both unset) is refused by the database layer on the
conductor, in the transaction that writes them, so the integer link and
the names cannot drift apart.
"""

from typing import TYPE_CHECKING
from typing import Any

from oslo_log import log as logging
from oslo_utils import versionutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from lite_common.context import RequestContext
from nova_lite.objects import base

if TYPE_CHECKING:
    from nova_lite.db import images
    from nova_lite.db import instances as db
    from nova_lite.db import links
else:
    images = base.database_module('nova_lite.db.images')
    db = base.database_module('nova_lite.db.instances')
    links = base.database_module('nova_lite.db.links')

LOG = logging.getLogger(__name__)


@base.NovaLiteObjectRegistry.register
class Instance(base.NovaLiteObject):
    # 1.0: first version. 1.1: old_flavor, new_flavor. 1.2: locked,
    # locked_by. 1.3: locked_reason, system_metadata; delete_snapshot.
    # 1.4: hostname. 1.5: pinned_availability_zone. 1.6: scheduler_hints.
    # 1.7: user_data, key_data.
    VERSION = '1.7'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'display_name': fields.StringField(nullable=True),
        'hostname': fields.StringField(nullable=True),
        'display_description': fields.StringField(nullable=True),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(),
        'image_ref': fields.StringField(nullable=True),
        'flavor': base.JSONField(nullable=True),
        # Set while a cold migration or resize is in progress.
        'old_flavor': base.JSONField(nullable=True),
        'new_flavor': base.JSONField(nullable=True),
        'vcpus': fields.IntegerField(default=0),
        'memory_mb': fields.IntegerField(default=0),
        'root_gb': fields.IntegerField(default=0),
        'vm_state': fields.StringField(),
        'task_state': fields.StringField(nullable=True),
        'power_state': fields.IntegerField(default=0),
        'host': fields.StringField(nullable=True),
        'node': fields.StringField(nullable=True),
        'compute_id': fields.IntegerField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'pinned_availability_zone': fields.StringField(nullable=True),
        'key_name': fields.StringField(nullable=True),
        'config_drive': fields.StringField(nullable=True),
        'user_data': fields.StringField(nullable=True),
        'key_data': fields.StringField(nullable=True),
        'access_ip_v4': fields.StringField(nullable=True),
        'access_ip_v6': fields.StringField(nullable=True),
        'metadata': fields.DictOfStringsField(default={}),
        'fault': base.JSONField(nullable=True),
        'launched_at': fields.DateTimeField(nullable=True),
        'terminated_at': fields.DateTimeField(nullable=True),
        'locked': fields.BooleanField(default=False),
        'locked_by': fields.StringField(nullable=True),
        'locked_reason': fields.StringField(nullable=True),
        'system_metadata': fields.DictOfNullableStringsField(default={}),
        # As given at create (None: a server from before they were kept).
        'scheduler_hints': fields.DictOfListOfStringsField(nullable=True),
        **base.TIMESTAMP_FIELDS,
        **base.SOFT_DELETE_FIELDS,
    }

    def obj_make_compatible(
        self, primitive: dict[str, Any], target_version: str
    ) -> None:
        """An older service does not know ``hostname`` (1.4),
        ``pinned_availability_zone`` (1.5), ``scheduler_hints`` (1.6) nor
        ``user_data`` and ``key_data`` (1.7)."""
        super().obj_make_compatible(primitive, target_version)
        target = versionutils.convert_version_to_tuple(target_version)
        if target < (1, 7):
            primitive.pop('user_data', None)
            primitive.pop('key_data', None)
        if target < (1, 6):
            primitive.pop('scheduler_hints', None)
        if target < (1, 5):
            primitive.pop('pinned_availability_zone', None)
        if target < (1, 4):
            primitive.pop('hostname', None)

    def _load_from_db(self, values: dict[str, Any]) -> base.NovaLiteObject:
        if values.get('system_metadata', {}) is None:
            # A row from before system metadata existed.
            values = {**values, 'system_metadata': {}}
        super()._load_from_db(values)
        return self

    @classmethod
    @ovo_base.remotable
    def get_by_uuid(
        cls, context: RequestContext, uuid: str, read_deleted: bool = False
    ) -> 'Instance':
        return cls._from_db(
            context,
            db.instance_get_by_uuid(context, uuid, read_deleted=read_deleted),
        )

    @ovo_base.remotable
    def create(self) -> None:
        values = self.obj_get_changes()
        self._load_from_db(db.instance_create(self._context, values))

    @ovo_base.remotable
    def save(self, expected_task_state: Any = ...) -> None:
        """Write the changed fields.

        ``expected_task_state`` (a value or a list) makes the write a
        compare-and-swap, so a concurrent delete is not undone.
        """
        values = self.obj_get_changes()
        if not values:
            return
        self._load_from_db(
            db.instance_update(
                self._context,
                self.uuid,
                values,
                expected_task_state=expected_task_state,
            )
        )

    @ovo_base.remotable
    def delete_snapshot(self, image_id: str) -> None:
        """Delete the snapshot image ``image_id`` (a shelved server's,
        once unshelved) if it still exists."""
        if image_id:
            images.delete_if_exists(self._context, image_id)

    @ovo_base.remotable
    def destroy(self) -> None:
        """Soft-delete and give the node its resources back."""
        self._load_from_db(db.instance_destroy(self._context, self.uuid))


@base.NovaLiteObjectRegistry.register
class InstanceList(base.NovaLiteObjectList, base.NovaLiteObject):
    # 1.0: first version. 1.1: get_by_filters. 1.2: get_uuids_by_compute_ids.
    # 1.3: fill_compute_ids; get_by_host removed (follow the integer
    # link: get_by_compute_id). 1.4: get_presence.
    VERSION = '1.4'

    fields = {'objects': fields.ListOfObjectsField('Instance')}

    @classmethod
    @ovo_base.remotable
    def get_by_compute_id(
        cls, context: RequestContext, compute_id: int
    ) -> 'InstanceList':
        """The live instances of a compute node, by the integer link."""
        rows = db.instance_get_all(context, {'compute_id': compute_id})
        return cls._from_rows(context, Instance, rows)

    @classmethod
    @ovo_base.remotable
    def get_by_filters(
        cls, context: RequestContext, filters: dict[str, Any]
    ) -> 'InstanceList':
        """Live instances matching the instance list filters of the DB
        API (e.g. compute_id and a list of task_state values)."""
        rows = db.instance_get_all(context, filters)
        return cls._from_rows(context, Instance, rows)

    @classmethod
    @ovo_base.remotable
    def get_uuids_by_compute_ids(
        cls, context: RequestContext, compute_ids: list[int]
    ) -> list[str]:
        """UUIDs of the live instances of these nodes (one light query,
        no objects)."""
        found = db.instance_ids_by_compute_id(context, compute_ids)
        return [uuid for pairs in found.values() for _id, uuid in pairs]

    @classmethod
    @ovo_base.remotable
    def get_presence(
        cls, context: RequestContext, uuids: list[str]
    ) -> dict[str, str]:
        """uuid -> 'live' or 'deleted' (no record at all: absent), for
        what a hypervisor holds; a few light queries, no objects."""
        return db.instance_presence(context, uuids)

    @classmethod
    @ovo_base.remotable
    def fill_compute_ids(
        cls, context: RequestContext, host: str, batch: int
    ) -> int:
        """Set compute_id on this host's instances that lack it (from
        host + node), in batches of ``batch`` rows; returns how many."""
        return links.fill_all(
            context, links.fill_instance_compute_ids, batch, host=host
        )
