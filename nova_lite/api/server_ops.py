"""What the API does for servers beyond rendering: create and delete.

Creating writes the instance records (BUILD/scheduling) and asks the
conductor to schedule them. Deleting asks the instance's compute to
destroy it, or deletes the record here when no compute holds it (not
scheduled yet) or its compute service is down.
"""

import secrets
from typing import Any
from typing import NamedTuple
from typing import cast

import netaddr
from oslo_log import log as logging
from oslo_utils import uuidutils
import webob
import webob.exc

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.api import boot_data
from nova_lite.api import server_placement
from nova_lite.api import util
from nova_lite.api import visibility
from nova_lite.common import hostnames
from nova_lite.common import requested_ports
from nova_lite.common import states
from nova_lite.compute_api import image_meta
from nova_lite.compute_api import power as power_api
from nova_lite.compute_api import scheduler_hints
from nova_lite.compute_api import shelve as shelve_api
from nova_lite.compute_api import trusted_certs as trusted_certs_db
from nova_lite.db import flavors as flavor_db
from nova_lite.db import images as image_db
from nova_lite.db import instance_actions as actions_db
from nova_lite.db import instances as db
from nova_lite.db import keypairs as keypair_db
from nova_lite.db import quotas as quota_db
from nova_lite.db import server_groups as group_db
from nova_lite.db import services as service_db
from nova_lite.db import tags as tag_db
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)


class Created(NamedTuple):
    instances: list[dict[str, Any]]
    reservation_id: str
    admin_pass: str


def _compute_services(
    req: webob.Request, host: str | None = None
) -> dict[str, Any]:
    rows = service_db.service_get_all(
        util.context(req), binary=service_obj.COMPUTE_BINARY, host=host
    )
    return {row['host']: row for row in rows}


def host_statuses(
    req: webob.Request, rows: list[dict[str, Any]]
) -> dict[str, str]:
    """host -> UP/DOWN/MAINTENANCE/UNKNOWN (only when it is shown)."""
    hosts = {row['host'] for row in rows if row['host']}
    if not hosts or not (
        util.context(req).is_admin and util.version(req).at_least('2.16')
    ):
        return {}
    only = next(iter(hosts)) if len(hosts) == 1 else None
    down_time = util.conf(req).service_down_time
    statuses = {}
    for host, service in _compute_services(req, only).items():
        if not service_obj.is_up(service, down_time):
            statuses[host] = 'DOWN'
        elif service['disabled']:
            statuses[host] = 'MAINTENANCE'
        else:
            statuses[host] = 'UP'
    return statuses


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


def flavor_snapshot(flavor: dict[str, Any]) -> dict[str, Any]:
    """What an instance keeps of its flavor (the flavor may change or
    go away later)."""
    return {k: flavor[k] for k in FLAVOR_SNAPSHOT_KEYS}


def _ref_id(ref: Any) -> str:
    """An id from an id or a URL whose last segment is the id."""
    return str(ref).rstrip('/').rsplit('/', 1)[-1]


def find_flavor(req: webob.Request, ref: Any) -> dict[str, Any]:
    try:
        flavor = flavor_db.flavor_get(util.context(req), _ref_id(ref))
    except exception.FlavorNotFound:
        flavor = None
    if flavor is None or not visibility.flavor_visible(
        util.context(req), flavor
    ):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Flavor {ref} could not be found.'
        )
    if flavor['disabled']:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Flavor {ref} is disabled.'
        )
    return flavor


def _image(
    req: webob.Request, ref: str | None, flavor: dict[str, Any]
) -> dict[str, Any]:
    """The image to boot (its row), checked against the flavor."""
    if not ref:
        raise webob.exc.HTTPBadRequest(
            explanation='imageRef is required: booting from volume is not '
            'supported.'
        )
    image_id = _ref_id(ref)
    try:
        image = image_db.image_get(util.context(req), image_id)
    except exception.ImageNotFound:
        image = None
    if image is None or not visibility.image_visible(util.context(req), image):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Image {ref} could not be found.'
        )
    if image['min_disk'] > flavor['root_gb'] and flavor['root_gb']:
        raise webob.exc.HTTPBadRequest(
            explanation=f"Flavor's disk is too small for requested image "
            f'(min_disk {image["min_disk"]} GiB).'
        )
    if image['min_ram'] > flavor['memory_mb']:
        raise webob.exc.HTTPBadRequest(
            explanation="Flavor's memory is too small for requested image "
            f'(min_ram {image["min_ram"]} MiB).'
        )
    return image


def rebuild_image(req: webob.Request, ref: str, flavor: dict[str, Any]) -> str:
    """The image of a rebuild (400 "Cannot find image for rebuild"
    when unknown or not visible, as upstream)."""
    try:
        return str(_image(req, ref, flavor)['id'])
    except webob.exc.HTTPBadRequest as exc:
        if 'could not be found' in str(exc.explanation):
            raise webob.exc.HTTPBadRequest(
                explanation='Cannot find image for rebuild'
            ) from None
        raise


def _counts(spec: dict[str, Any]) -> tuple[int, int]:
    low = util.bounded_int(spec.get('min_count', 1), 'min_count', 1)
    high = util.bounded_int(spec.get('max_count', low), 'max_count', 1)
    if low > high:
        raise webob.exc.HTTPBadRequest(
            explanation='min_count must be <= max_count.'
        )
    return low, high


TRUSTED_CERTS_KEY = trusted_certs_db.KEY


def trusted_certs(
    req: webob.Request, spec: dict[str, Any], action: str
) -> list[str] | None:
    """The certificate ids a create or rebuild asks for (None when
    none); asking for some needs ``servers:<action>:trusted_certs``."""
    certs = spec.get(TRUSTED_CERTS_KEY)
    if certs:
        util.authorize(
            req,
            f'os_compute_api:servers:{action}:trusted_certs',
            {'project_id': util.context(req).project_id},
        )
    return certs or None


def _check_security_groups(spec: dict[str, Any]) -> None:
    """Security groups are neutron's; without networking the only group
    is ``default`` (which upstream passes through unchecked). Any other
    name is a 400 with the message upstream relays from neutron."""
    for group in spec.get('security_groups', []):
        name = group.get('name')
        if name is not None and name != 'default':
            raise webob.exc.HTTPBadRequest(
                explanation='Unable to find security_group with name or id '
                f"'{name}'"
            )


def access_address(value: str | None, version: int) -> str | None:
    """An access IP in its canonical form, as upstream stores it
    (``0000:...:babe:220.12.22.2`` -> ``::babe:dc0c:1602``); the
    schema has checked it is one."""
    if value is None:
        return None
    return str(netaddr.IPAddress(value, version))


def check_key_name(ctx: RequestContext, key_name: str | None) -> str | None:
    """The public key of a key pair of the caller's (400 otherwise,
    upstream's message); None without a name."""
    if key_name is None:
        return None
    try:
        return cast(
            'str | None',
            keypair_db.get(ctx, ctx.user_id, key_name)['public_key'],
        )
    except exception.KeypairNotFound:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid key_name provided.'
        ) from None


def _requested_hostname(
    req: webob.Request, spec: dict[str, Any], max_count: int
) -> str | None:
    """The ``hostname`` a create asks for (2.90; None before, or when
    not given); one host name for up to ``max_count`` (above 1) servers
    is a 400, as upstream."""
    hostname = (
        spec.get('hostname') if util.version(req).at_least('2.90') else None
    )
    if hostname and max_count > 1:
        raise webob.exc.HTTPBadRequest(
            explanation='Unable to allocate a single hostname to multiple '
            'instances'
        )
    return hostname


def create(req: webob.Request, body: dict[str, Any]) -> Created:
    """Create as many of the requested instances as the project's quota
    allows (``max_count`` at most, ``min_count`` at least, else
    TooManyInstances: a 403) and ask the conductor to build them."""
    ctx = util.context(req)
    spec = body['server']
    _check_security_groups(spec)
    where = server_placement.placement(req, body)
    flavor = find_flavor(req, spec['flavorRef'])
    ports = boot_data.ports(spec, flavor)
    user_data = boot_data.user_data(spec.get('user_data'))
    image = _image(req, spec.get('imageRef'), flavor)
    key_data = check_key_name(ctx, spec.get('key_name'))
    low, high = _counts(spec)
    hostname = _requested_hostname(req, spec, high)
    reservation_id = 'r-' + secrets.token_hex(4)
    snapshot = flavor_snapshot(flavor)
    hints = scheduler_hints.stored(scheduler_hints.from_request(body))
    system_metadata = trusted_certs_db.kept(
        {
            **where.system_metadata,
            **image_meta.copied(image, flavor),
            **requested_ports.encode(ports),
        },
        trusted_certs(req, spec, 'create'),
    )

    def values(index: int, count: int) -> dict[str, Any]:
        name = spec['name'] if count == 1 else f'{spec["name"]}-{index + 1}'
        uuid = uuidutils.generate_uuid()
        return {
            'uuid': uuid,
            'display_name': name,
            'hostname': hostname
            or hostnames.for_server(spec['name'], uuid, count, index),
            'display_description': spec.get('description'),
            'project_id': ctx.project_id,
            'user_id': ctx.user_id,
            'image_ref': image['id'],
            'flavor': snapshot,
            'vcpus': flavor['vcpus'],
            'memory_mb': flavor['memory_mb'],
            'root_gb': flavor['root_gb'],
            'vm_state': states.BUILDING,
            'task_state': states.SCHEDULING,
            'availability_zone': where.availability_zone,
            # Moves and unshelves stay in it (upstream's request spec).
            'pinned_availability_zone': where.availability_zone,
            'system_metadata': {
                **system_metadata,
                'reservation_id': reservation_id,
                'launch_index': str(index),
            },
            'key_name': spec.get('key_name'),
            'key_data': key_data,
            'user_data': user_data,
            'config_drive': str(spec.get('config_drive') or ''),
            'access_ip_v4': access_address(spec.get('accessIPv4'), 4),
            'access_ip_v6': access_address(spec.get('accessIPv6'), 6),
            'metadata': spec.get('metadata', {}),
            'scheduler_hints': hints,
        }

    per_item = {
        'instances': 1,
        'cores': flavor['vcpus'],
        'ram': flavor['memory_mb'],
    }
    # The Compute API's contexts always carry a project (lite_common.wsgi
    # .auth); the type says Optional for the system scope of others.
    instances = quota_db.create_instances(
        ctx, cast(str, ctx.project_id), per_item, low, high, values
    )
    actions_db.record_many(
        ctx,
        [power_api.action_values(ctx, inst, 'create') for inst in instances],
    )
    for inst in instances if spec.get('tags') else ():
        tag_db.replace(ctx, inst['uuid'], spec['tags'])
    if where.group is not None:
        group_db.add_members(
            ctx, where.group['id'], [inst['uuid'] for inst in instances]
        )
    util.deps(req).conductor.build_instances(
        ctx, [inst['uuid'] for inst in instances]
    )
    return Created(
        instances,
        reservation_id,
        spec.get('adminPass') or secrets.token_urlsafe(9),
    )


def delete(req: webob.Request, inst: dict[str, Any]) -> None:
    ctx = util.context(req)
    power_api.check_lock(ctx, inst)
    actions_db.record(ctx, power_api.action_values(ctx, inst, 'delete'))
    # A shelved server's snapshot goes with it (as upstream).
    shelve_api.forget_snapshot(ctx, inst)
    if inst['host']:
        service = _compute_services(req, inst['host']).get(inst['host'])
        if service is not None and service_obj.is_up(
            service, util.conf(req).service_down_time
        ):
            db.instance_update(
                ctx, inst['uuid'], {'task_state': states.DELETING}
            )
            inst = db.instance_get_by_uuid(ctx, inst['uuid'])
            util.deps(req).terminate(ctx, inst)
            return
        LOG.warning(
            'Compute %s is down: deleting the record of instance '
            '%s here; its local files stay on that host until it '
            'is cleaned up there',
            inst['host'],
            inst['uuid'],
        )
    db.instance_destroy(ctx, inst['uuid'])
