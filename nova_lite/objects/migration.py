"""The Migration object: every move of an instance is recorded."""

from typing import TYPE_CHECKING
from typing import Any

from oslo_config import cfg
from oslo_utils import uuidutils
from oslo_utils import versionutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from lite_common.context import RequestContext
from nova_lite.objects import base

if TYPE_CHECKING:
    from nova_lite.db import links
    from nova_lite.db import migrations as db
    from nova_lite.scheduler import claims
    from nova_lite.scheduler import constraints
else:
    links = base.database_module('nova_lite.db.links')
    db = base.database_module('nova_lite.db.migrations')
    claims = base.database_module('nova_lite.scheduler.claims')
    constraints = base.database_module('nova_lite.scheduler.constraints')

MIGRATION_TYPES = ('migration', 'resize', 'live-migration', 'evacuation')


@base.NovaLiteObjectRegistry.register
class Migration(base.NovaLiteObject):
    # 1.0: first version. 1.1: claim_destination, finish_on_destination.
    # 1.2: claim_resize, transition. 1.3: the claims return what they
    # found (a claims.* result); set_destination. 1.4: target_state,
    # forced. 1.5: refused_hosts, release_destination.
    VERSION = '1.5'

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
        # An evacuation's end state on its destination: 'stopped' (API
        # 2.95 and later) or None (it keeps its state).
        'target_state': fields.StringField(nullable=True),
        # An evacuation to a forced host: not held to the zone.
        'forced': fields.BooleanField(nullable=True),
        # A cold move's hosts that refused its claim; None: the
        # destination was asked for by name (no other is tried).
        'refused_hosts': fields.ListOfStringsField(nullable=True),
        **base.TIMESTAMP_FIELDS,
        **base.SOFT_DELETE_FIELDS,
    }

    def obj_make_compatible(
        self, primitive: dict[str, Any], target_version: str
    ) -> None:
        """An older service does not know ``refused_hosts`` (1.5)."""
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 5):
            primitive.pop('refused_hosts', None)

    @classmethod
    @ovo_base.remotable
    def get_by_id(
        cls, context: RequestContext, migration_id: int
    ) -> 'Migration':
        return cls._from_db(
            context, db.migration_get(context, id=migration_id)
        )

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
                db.migration_update(self._context, self.id, values)
            )

    def _claim(
        self,
        claim: Any,
        node_id: int,
        vcpus: int,
        memory_mb: int,
        root_gb: int,
    ) -> str:
        # The group is read before the claim's transaction, whose first
        # statement locks it (see scheduler.constraints).
        request = claims.Request(
            self.instance_uuid,
            vcpus,
            memory_mb,
            root_gb,
            group=constraints.group_of(self._context, self.instance_uuid),
        )
        result: str = claim(self._context, cfg.CONF, request, node_id, self.id)
        self._load_from_db(db.migration_get(self._context, id=self.id))
        return result

    @ovo_base.remotable
    def claim_destination(
        self, node_id: int, vcpus: int, memory_mb: int, root_gb: int
    ) -> str:
        """The destination's claim of an evacuation (see
        claims.claim_for_migration); the object is reloaded."""
        return self._claim(
            claims.claim_for_migration, node_id, vcpus, memory_mb, root_gb
        )

    @ovo_base.remotable
    def claim_resize(
        self, node_id: int, vcpus: int, memory_mb: int, root_gb: int
    ) -> str:
        """The destination's claim of a cold migration or resize (the
        new flavor's resources; see claims.claim_for_resize)."""
        return self._claim(
            claims.claim_for_resize, node_id, vcpus, memory_mb, root_gb
        )

    @ovo_base.remotable
    def set_destination(
        self, host: str, node: str, statuses: list[str]
    ) -> bool:
        """The conductor's choice of destination, once (see
        db.migrations.set_destination); the object is reloaded."""
        chosen = db.set_destination(
            self._context, self.id, host, node, tuple(statuses)
        )
        self._load_from_db(db.migration_get(self._context, id=self.id))
        return chosen

    @ovo_base.remotable
    def release_destination(
        self, host: str, node: str, max_attempts: int
    ) -> bool:
        """A destination chosen by the scheduler that refused at its
        claim gives the move back to be scheduled again without it
        (see db.migrations.release_destination); the object is
        reloaded."""
        released = db.release_destination(
            self._context, self.id, host, node, max_attempts
        )
        self._load_from_db(db.migration_get(self._context, id=self.id))
        return released

    @ovo_base.remotable
    def transition(self, from_statuses: list[str], status: str) -> bool:
        """``status`` only while the record is in ``from_statuses``
        (compare-and-swap); the object is reloaded either way."""
        moved = db.migration_transition(
            self._context, self.id, tuple(from_statuses), status
        )
        self._load_from_db(db.migration_get(self._context, id=self.id))
        return moved

    @ovo_base.remotable
    def finish_on_destination(self) -> None:
        """``done`` unless the source already completed the record."""
        db.finish_on_destination(self._context, self.id)
        self._load_from_db(db.migration_get(self._context, id=self.id))


@base.NovaLiteObjectRegistry.register
class MigrationList(base.NovaLiteObjectList, base.NovaLiteObject):
    # 1.0: first version. 1.1: get_evacuations_from, mark_completed.
    # 1.2: fill_dest_compute_ids. 1.3: get_evacuations_to;
    # mark_completed completes only ``done`` records;
    # get_cold_moves_in_flight.
    VERSION = '1.3'

    fields = {'objects': fields.ListOfObjectsField('Migration')}

    @classmethod
    @ovo_base.remotable
    def get_by_filters(
        cls, context: RequestContext, filters: dict[str, Any]
    ) -> 'MigrationList':
        rows = db.migration_get_all(context, filters)
        return cls._from_rows(context, Migration, rows)

    @classmethod
    @ovo_base.remotable
    def get_evacuations_from(
        cls, context: RequestContext, host: str
    ) -> 'MigrationList':
        """Evacuations away from ``host`` whose copy there is not cleaned
        up: accepted, pre-migrating or done (one query, including those
        of since-deleted instances)."""
        return cls._from_rows(
            context, Migration, db.evacuations_from(context, host)
        )

    @classmethod
    @ovo_base.remotable
    def get_evacuations_to(
        cls, context: RequestContext, host: str, node_ids: list[int]
    ) -> 'MigrationList':
        """Evacuations to this host left unfinished (claimed by one of
        ``node_ids``, or accepted with this host chosen), one query."""
        return cls._from_rows(
            context, Migration, db.evacuations_to(context, host, node_ids)
        )

    @classmethod
    @ovo_base.remotable
    def get_cold_moves_in_flight(
        cls, context: RequestContext, host: str, node_ids: list[int]
    ) -> 'MigrationList':
        """Cold migrations and resizes in flight from ``host`` or claimed
        by one of ``node_ids`` (one query)."""
        return cls._from_rows(
            context,
            Migration,
            db.cold_moves_in_flight(context, host, node_ids),
        )

    @classmethod
    @ovo_base.remotable
    def mark_completed(
        cls, context: RequestContext, migration_ids: list[int]
    ) -> int:
        return db.mark_completed(context, migration_ids)

    @classmethod
    @ovo_base.remotable
    def fill_dest_compute_ids(
        cls, context: RequestContext, host: str, batch: int
    ) -> int:
        """Set dest_compute_id on migrations to this host that lack it
        (from dest_compute + dest_node), in batches; returns how many."""
        return links.fill_all(
            context, links.fill_migration_dest_compute_ids, batch, host=host
        )
