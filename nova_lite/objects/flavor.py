"""The Flavor object."""

from typing import TYPE_CHECKING
from typing import Any

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from lite_common.context import RequestContext
from nova_lite.objects import base

if TYPE_CHECKING:
    from nova_lite.db import flavors as db
else:
    db = base.database_module('nova_lite.db.flavors')


@base.NovaLiteObjectRegistry.register
class Flavor(base.NovaLiteObject):
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'flavorid': fields.StringField(),
        'name': fields.StringField(),
        'vcpus': fields.IntegerField(),
        'memory_mb': fields.IntegerField(),
        'root_gb': fields.IntegerField(default=0),
        'ephemeral_gb': fields.IntegerField(default=0),
        'swap': fields.IntegerField(default=0),
        'rxtx_factor': fields.FloatField(default=1.0),
        'is_public': fields.BooleanField(default=True),
        'disabled': fields.BooleanField(default=False),
        'description': fields.StringField(nullable=True),
        'extra_specs': fields.DictOfStringsField(default={}),
        **base.TIMESTAMP_FIELDS,
    }

    @classmethod
    @ovo_base.remotable
    def get_by_flavor_id(
        cls, context: RequestContext, flavorid: str
    ) -> 'Flavor':
        return cls._from_db(context, db.flavor_get(context, flavorid))

    @ovo_base.remotable
    def create(self) -> None:
        self._load_from_db(
            db.flavor_create(self._context, self.obj_get_changes())
        )

    @ovo_base.remotable
    def destroy(self) -> None:
        db.flavor_destroy(self._context, self.flavorid)

    def snapshot(self) -> dict[str, Any]:
        """What an instance keeps of its flavor (survives its deletion)."""
        return {
            'flavorid': self.flavorid,
            'name': self.name,
            'vcpus': self.vcpus,
            'memory_mb': self.memory_mb,
            'root_gb': self.root_gb,
            'ephemeral_gb': self.ephemeral_gb,
            'swap': self.swap,
            'extra_specs': dict(self.extra_specs),
        }
