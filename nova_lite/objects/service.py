"""The Service object: one nova_lite daemon on one host."""

import datetime
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol

from oslo_utils import timeutils
from oslo_utils import uuidutils
from oslo_utils import versionutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields

from lite_common.context import RequestContext
from nova_lite.objects import base

if TYPE_CHECKING:
    from nova_lite.db import service_identity
    from nova_lite.db import services as db
else:
    service_identity = base.database_module('nova_lite.db.service_identity')
    db = base.database_module('nova_lite.db.services')

# Bumped whenever a service gains a behaviour others must know about.
# 1: the first release. 2: compute agents keep a compute_id file (a
# compute service at 2 or later without one has lost its state).
# 3: compute agents end an evacuation as its record's target_state says
# (an evacuation asked with API 2.95 or later ends stopped).
SERVICE_VERSION = 3
IDENTITY_SERVICE_VERSION = 2
EVACUATE_STOPPED_SERVICE_VERSION = 3

COMPUTE_BINARY = 'nova-compute'
CONDUCTOR_BINARY = 'nova-conductor'


class ServiceRecord(Protocol):
    """A services row (dict) or a Service object: read by key."""

    def __getitem__(self, key: str) -> Any: ...


def is_up(service: ServiceRecord, down_time: int) -> bool:
    """Whether a service is up: not forced down and heard from within
    ``down_time`` seconds. ``service``: a services row (a dict, naive
    UTC times) or a Service object."""
    seen: datetime.datetime | None = service['last_seen_up']
    if service['forced_down'] or seen is None:
        return False
    if seen.tzinfo is None:
        seen = seen.replace(tzinfo=datetime.UTC)
    elapsed = timeutils.utcnow(with_timezone=True) - seen
    return abs(elapsed.total_seconds()) <= down_time


@base.NovaLiteObjectRegistry.register
class Service(base.NovaLiteObject):
    # 1.1: incarnation and process (the compute agent process holding
    # the host name), claim, check_held and let_go.
    VERSION = '1.1'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'host': fields.StringField(),
        'binary': fields.StringField(),
        'topic': fields.StringField(nullable=True),
        'disabled': fields.BooleanField(default=False),
        'disabled_reason': fields.StringField(nullable=True),
        'forced_down': fields.BooleanField(default=False),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'report_count': fields.IntegerField(default=0),
        'version': fields.IntegerField(default=0),
        'incarnation': fields.StringField(nullable=True),
        'process': fields.StringField(nullable=True),
        **base.TIMESTAMP_FIELDS,
        **base.SOFT_DELETE_FIELDS,
    }

    @classmethod
    @ovo_base.remotable
    def get_by_host_and_binary(
        cls, context: RequestContext, host: str, binary: str
    ) -> 'Service':
        return cls._from_db(
            context, db.service_get(context, host=host, binary=binary)
        )

    @classmethod
    @ovo_base.remotable
    def get_by_id(cls, context: RequestContext, service_id: int) -> 'Service':
        return cls._from_db(context, db.service_get(context, id=service_id))

    @classmethod
    @ovo_base.remotable
    def get_by_uuid(cls, context: RequestContext, uuid: str) -> 'Service':
        return cls._from_db(context, db.service_get(context, uuid=uuid))

    @ovo_base.remotable
    def create(self) -> None:
        values = self.obj_get_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        self._load_from_db(db.service_create(self._context, values))

    @ovo_base.remotable
    def save(self) -> None:
        values = self.obj_get_changes()
        if values:
            self._load_from_db(
                db.service_update(self._context, self.id, values)
            )

    def obj_make_compatible(
        self, primitive: dict[str, Any], target_version: str
    ) -> None:
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 1):
            primitive.pop('incarnation', None)
            primitive.pop('process', None)

    def _holder(self) -> str | None:
        if not self.obj_attr_is_set('incarnation'):
            return None  # an agent older than 1.1, or a conductor
        return self.incarnation  # type: ignore[no-any-return]

    @ovo_base.remotable
    def heartbeat(self) -> None:
        """Record that the service is alive (one UPDATE); for a compute
        agent that claimed its host name, only while it holds it.

        :raises ComputeReplaced: (see db/service_identity.py)
        """
        incarnation = self._holder()
        if incarnation is None:
            self.last_seen_up = db.service_heartbeat(self._context, self.id)
        else:
            self.last_seen_up = service_identity.heartbeat(
                self._context, self.id, self.host, incarnation
            )
        self.obj_reset_changes(['last_seen_up'])

    @ovo_base.remotable
    def claim(
        self,
        incarnation: str,
        process: str,
        down_time: float,
        dead_incarnation: str | None = None,
        process_key: str | None = None,
    ) -> None:
        """Take the host name for the agent process ``incarnation``.

        :raises ComputeHostInUse: a live process holds it.
        """
        self._load_from_db(
            service_identity.claim(
                self._context,
                self.id,
                incarnation,
                process,
                down_time,
                dead_incarnation,
                process_key,
            )
        )

    @ovo_base.remotable
    def check_held(self) -> None:
        """:raises ComputeReplaced: this process holds the name no
        more."""
        service_identity.check_held(
            self._context, self.id, self.host, self.incarnation
        )

    @ovo_base.remotable
    def let_go(self) -> None:
        """A clean stop: the name is free for the next agent."""
        if service_identity.let_go(self._context, self.id, self.incarnation):
            for name in ('incarnation', 'process'):
                setattr(self, name, None)
        self.obj_reset_changes(['incarnation', 'process'])

    @ovo_base.remotable
    def destroy(self) -> None:
        db.service_destroy(self._context, self.id)

    def is_up(self, down_time: int) -> bool:
        return is_up(self, down_time)


@base.NovaLiteObjectRegistry.register
class ServiceList(base.NovaLiteObjectList, base.NovaLiteObject):
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('Service')}

    @classmethod
    @ovo_base.remotable
    def get_all(
        cls,
        context: RequestContext,
        binary: str | None = None,
        host: str | None = None,
    ) -> 'ServiceList':
        rows = db.service_get_all(context, binary=binary, host=host)
        return cls._from_rows(context, Service, rows)
