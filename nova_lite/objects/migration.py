"""The Migration object: every move of an instance is recorded."""

from typing import Any

from oslo_utils import uuidutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from nova_lite.db import migrations as db
from nova_lite.objects import base

MIGRATION_TYPES = ('migration', 'resize', 'live-migration', 'evacuation')


@base.NovaLiteObjectRegistry.register
class Migration(base.NovaLiteObject):
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'instance_uuid': fields.UUIDField(),
        'source_compute': fields.StringField(nullable=True),
        'source_node': fields.StringField(nullable=True),
        'dest_compute': fields.StringField(nullable=True),
        'dest_node': fields.StringField(nullable=True),
        'dest_host': fields.StringField(nullable=True),
        'dest_compute_id': fields.IntegerField(nullable=True),
        'migration_type': fields.EnumField(MIGRATION_TYPES),
        'status': fields.StringField(),
        'old_flavor_id': fields.StringField(nullable=True),
        'new_flavor_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'hidden': fields.BooleanField(default=False),
        **base.TIMESTAMP_FIELDS,
        **base.SOFT_DELETE_FIELDS,
    }

    @classmethod
    @ovo_base.remotable
    def get_by_id(cls, context: Any, migration_id: int) -> 'Migration':
        return cls._from_db(context, db.migration_get(context,
                                                      id=migration_id))

    @ovo_base.remotable
    def create(self) -> None:
        values = self.obj_get_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        self._load_from_db(db.migration_create(self._context, values))

    @ovo_base.remotable
    def save(self) -> None:
        values = self.obj_get_changes()
        if values:
            self._load_from_db(
                db.migration_update(self._context, self.id, values))


@base.NovaLiteObjectRegistry.register
class MigrationList(base.NovaLiteObjectList, base.NovaLiteObject):
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('Migration')}

    @classmethod
    @ovo_base.remotable
    def get_by_filters(cls, context: Any,
                       filters: dict[str, Any]) -> 'MigrationList':
        rows = db.migration_get_all(context, filters)
        return cls._from_rows(context, Migration, rows)
