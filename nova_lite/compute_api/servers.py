"""Server create and delete: the records, the quota and the casts.

Creating writes the instance records (BUILD/scheduling) within the
project's quota and asks the conductor to schedule them. Deleting asks
the instance's compute to destroy it, or deletes the record here when
no compute holds it (not scheduled yet) or its compute service is down.

The HTTP layer (:mod:`nova_lite.api.server_ops`) parses and authorizes
the request first: what arrives here is a :class:`BootRequest` whose
every field is checked for its form; this module checks it against the
records (flavor, image, key pair) and refuses with
:class:`nova_lite.exception.Invalid` (a 400) as upstream words it.
"""

from collections.abc import Mapping
import dataclasses
import secrets
from typing import Any
from typing import NamedTuple
from typing import cast

import netaddr
from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import uuidutils

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import hostnames
from nova_lite.common import requested_ports
from nova_lite.common import states
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute_api import image_meta
from nova_lite.compute_api import power as power_api
from nova_lite.compute_api import scheduler_hints
from nova_lite.compute_api import shelve as shelve_api
from nova_lite.compute_api import trusted_certs as trusted_certs_db
from nova_lite.compute_api import visibility
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.db import flavors as flavor_db
from nova_lite.db import images as image_db
from nova_lite.db import instance_actions as actions_db
from nova_lite.db import instances as db
from nova_lite.db import keypairs as keypair_db
from nova_lite.db import quotas as quota_db
from nova_lite.db import server_groups as group_db
from nova_lite.db import services as service_db
from nova_lite.db import tags as tag_db
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import service as service_obj
from nova_lite.scheduler import claims

LOG = logging.getLogger(__name__)

Row = dict[str, Any]

#: What an instance keeps of its flavor (the flavor may change or go
#: away later).
FLAVOR_SNAPSHOT_KEYS = (
    'flavorid',
    'name',
    'vcpus',
    'memory_mb',
    'root_gb',
    'ephemeral_gb',
    'swap',
    'extra_specs',
)


@dataclasses.dataclass(frozen=True)
class BootRequest:
    """A server create as the HTTP layer parsed and authorized it."""

    name: str
    flavor_ref: str
    image_ref: str | None
    min_count: int = 1
    max_count: int = 1
    description: str | None = None
    #: 2.90's ``hostname`` (None before, or when not given).
    hostname: str | None = None
    key_name: str | None = None
    #: Base64, as given (the HTTP layer checked its form and length).
    user_data: str | None = None
    config_drive: bool | str | None = None
    admin_pass: str | None = None
    access_ip_v4: str | None = None
    access_ip_v6: str | None = None
    metadata: Mapping[str, str] = dataclasses.field(default_factory=dict)
    tags: tuple[str, ...] = ()
    #: Port ids of ``networks`` (see :mod:`nova_lite.common.requested_ports`).
    ports: tuple[str, ...] = ()
    #: The ``os:scheduler_hints`` of the body.
    scheduler_hints: Mapping[str, Any] = dataclasses.field(
        default_factory=dict
    )
    #: Certificate ids (the caller may ask for them: the HTTP layer
    #: checked the policy).
    trusted_certs: list[str] | None = None
    #: Where the servers may go (see :mod:`nova_lite.api.server_placement`).
    availability_zone: str | None = None
    placement_metadata: Mapping[str, str] = dataclasses.field(
        default_factory=dict
    )
    group_id: int | None = None


class Created(NamedTuple):
    instances: list[Row]
    reservation_id: str
    admin_pass: str


def flavor_snapshot(flavor: Row) -> Row:
    """What an instance keeps of its flavor."""
    return {k: flavor[k] for k in FLAVOR_SNAPSHOT_KEYS}


def ref_id(ref: Any) -> str:
    """An id from an id or a URL whose last segment is the id."""
    return str(ref).rstrip('/').rsplit('/', 1)[-1]


def find_flavor(ctx: RequestContext, ref: Any) -> Row:
    """The flavor ``ref`` names, visible to the caller and enabled
    (Invalid otherwise, upstream's messages)."""
    try:
        flavor = flavor_db.flavor_get(ctx, ref_id(ref))
    except exception.FlavorNotFound:
        flavor = None
    if flavor is None or not visibility.flavor_visible(ctx, flavor):
        raise exception.Invalid(f'Flavor {ref} could not be found.')
    if flavor['disabled']:
        raise exception.Invalid(f'Flavor {ref} is disabled.')
    return flavor


def find_image(ctx: RequestContext, ref: str | None, flavor: Row) -> Row:
    """The image to boot (its row): active, then checked against the
    flavor, in upstream's order (``API._validate_flavor_image``, for a
    create and a rebuild; a resize and a rescue do not ask)."""
    if not ref:
        raise exception.Invalid(
            'imageRef is required: booting from volume is not supported.'
        )
    try:
        image = image_db.image_get(ctx, ref_id(ref))
    except exception.ImageNotFound:
        image = None
    if image is None or not visibility.image_visible(ctx, image):
        raise exception.Invalid(f'Image {ref} could not be found.')
    if image['status'] != 'active':
        raise exception.ImageNotActive(image_id=image['id'])
    if image['min_disk'] > flavor['root_gb'] and flavor['root_gb']:
        raise exception.Invalid(
            "Flavor's disk is too small for requested image "
            f'(min_disk {image["min_disk"]} GiB).'
        )
    if image['min_ram'] > flavor['memory_mb']:
        raise exception.Invalid(
            "Flavor's memory is too small for requested image "
            f'(min_ram {image["min_ram"]} MiB).'
        )
    return image


def rebuild_image(ctx: RequestContext, ref: str, flavor: Row) -> str:
    """The image of a rebuild ("Cannot find image for rebuild" when
    unknown or not visible, as upstream)."""
    try:
        return str(find_image(ctx, ref, flavor)['id'])
    except exception.Invalid as exc:
        if 'could not be found' in exc.format_message():
            raise exception.Invalid('Cannot find image for rebuild') from None
        raise


def access_address(value: str | None, version: int) -> str | None:
    """An access IP in its canonical form, as upstream stores it
    (``0000:...:babe:220.12.22.2`` -> ``::babe:dc0c:1602``); the
    schema has checked it is one."""
    if value is None:
        return None
    return str(netaddr.IPAddress(value, version))


def check_key_name(ctx: RequestContext, key_name: str | None) -> str | None:
    """The public key of a key pair of the caller's (Invalid otherwise,
    upstream's message); None without a name."""
    if key_name is None:
        return None
    try:
        row = keypair_db.get(ctx, ctx.user_id, key_name)
    except exception.KeypairNotFound:
        raise exception.Invalid('Invalid key_name provided.') from None
    return cast(str, row['public_key'])


def check_security_groups(names: tuple[str, ...]) -> None:
    """Security groups are neutron's; without networking the only group
    is ``default`` (which upstream passes through unchecked). Any other
    name is refused with the message upstream relays from neutron. The
    HTTP layer checks it as it parses a create (no record is read)."""
    for name in names:
        if name != 'default':
            raise exception.Invalid(
                f"Unable to find security_group with name or id '{name}'"
            )


def _check_ports(ports: tuple[str, ...], flavor: Row) -> None:
    if ports and claims.flavor_resource_class(flavor) is None:
        raise exception.Invalid(
            'nova_lite has no networking service: ports can be requested '
            'only with a bare metal flavor (they become VIFs of the node); '
            'request "networks": "none" otherwise.'
        )


def compute_services(
    ctx: RequestContext, host: str | None = None
) -> dict[str, Row]:
    """host -> its nova-compute service record (of ``host`` only when
    given)."""
    rows = service_db.service_get_all(
        ctx, binary=service_obj.COMPUTE_BINARY, host=host
    )
    return {row['host']: row for row in rows}


class ServerLifecycle:
    """Create and delete; mixed into :class:`nova_lite.compute_api.moves
    .API`, which sets ``conf``, ``conductor`` and ``compute``."""

    conf: cfg.ConfigOpts
    conductor: conductor_rpcapi.ConductorAPI
    compute: compute_rpcapi.ComputeAPI

    def create(self, ctx: RequestContext, request: BootRequest) -> Created:
        """Create as many of the requested instances as the project's
        quota allows (``max_count`` at most, ``min_count`` at least, else
        TooManyInstances: a 403) and ask the conductor to build them."""
        flavor = find_flavor(ctx, request.flavor_ref)
        _check_ports(request.ports, flavor)
        image = find_image(ctx, request.image_ref, flavor)
        key_data = check_key_name(ctx, request.key_name)
        reservation_id = 'r-' + secrets.token_hex(4)
        snapshot = flavor_snapshot(flavor)
        hints = scheduler_hints.stored(dict(request.scheduler_hints))
        system_metadata = trusted_certs_db.kept(
            {
                **request.placement_metadata,
                **image_meta.copied(image, flavor),
                **requested_ports.encode(list(request.ports)),
            },
            request.trusted_certs,
        )

        def values(index: int, count: int) -> Row:
            name = (
                request.name if count == 1 else f'{request.name}-{index + 1}'
            )
            uuid = uuidutils.generate_uuid()
            return {
                'uuid': uuid,
                'display_name': name,
                'hostname': request.hostname
                or hostnames.for_server(request.name, uuid, count, index),
                'display_description': request.description,
                'project_id': ctx.project_id,
                'user_id': ctx.user_id,
                'image_ref': image['id'],
                'flavor': snapshot,
                'vcpus': flavor['vcpus'],
                'memory_mb': flavor['memory_mb'],
                'root_gb': flavor['root_gb'],
                'vm_state': states.BUILDING,
                'task_state': states.SCHEDULING,
                'availability_zone': request.availability_zone,
                # Moves and unshelves stay in it (upstream's request spec).
                'pinned_availability_zone': request.availability_zone,
                'system_metadata': {
                    **system_metadata,
                    'reservation_id': reservation_id,
                    'launch_index': str(index),
                },
                'key_name': request.key_name,
                'key_data': key_data,
                'user_data': request.user_data,
                'config_drive': str(request.config_drive or ''),
                'access_ip_v4': access_address(request.access_ip_v4, 4),
                'access_ip_v6': access_address(request.access_ip_v6, 6),
                'metadata': dict(request.metadata),
                'scheduler_hints': hints,
            }

        per_item = {
            'instances': 1,
            'cores': flavor['vcpus'],
            'ram': flavor['memory_mb'],
        }
        # The Compute API's contexts always carry a project (lite_common
        # .wsgi.auth); the type says Optional for the system scope of
        # others.
        instances = quota_db.create_instances(
            ctx,
            cast(str, ctx.project_id),
            per_item,
            request.min_count,
            request.max_count,
            values,
        )
        actions_db.record_many(
            ctx,
            [
                power_api.action_values(ctx, inst, 'create')
                for inst in instances
            ],
        )
        for inst in instances if request.tags else ():
            tag_db.replace(ctx, inst['uuid'], list(request.tags))
        if request.group_id is not None:
            group_db.add_members(
                ctx, request.group_id, [inst['uuid'] for inst in instances]
            )
        self.conductor.build_instances(
            ctx, [inst['uuid'] for inst in instances]
        )
        return Created(
            instances,
            reservation_id,
            request.admin_pass or secrets.token_urlsafe(9),
        )

    def delete(self, ctx: RequestContext, inst: Row) -> None:
        """Delete ``inst`` now: its compute destroys it, or the record
        goes here when no compute holds it or its compute is down (the
        caller checked the lock and what a delete must confirm)."""
        power_api.check_lock(ctx, inst)
        actions_db.record(ctx, power_api.action_values(ctx, inst, 'delete'))
        # A shelved server's snapshot goes with it (as upstream).
        shelve_api.forget_snapshot(ctx, inst)
        if inst['host']:
            service = compute_services(ctx, inst['host']).get(inst['host'])
            if service is not None and service_obj.is_up(
                service, self.conf.service_down_time
            ):
                db.instance_update(
                    ctx, inst['uuid'], {'task_state': states.DELETING}
                )
                row = db.instance_get_by_uuid(ctx, inst['uuid'])
                instance = instance_obj.Instance._from_db(ctx, row)
                self.compute.terminate_instance(ctx, instance, row['host'])
                return
            LOG.warning(
                'Compute %s is down: deleting the record of instance '
                '%s here; its local files stay on that host until it '
                'is cleaned up there',
                inst['host'],
                inst['uuid'],
            )
        db.instance_destroy(ctx, inst['uuid'])
