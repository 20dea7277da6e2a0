"""Compute API microversions: the range and the history, one line each.

Only changes that touch a resource this API covers are listed; every
version in the range is accepted, and a version without a line here
behaves as the one before it.

* 2.1   - The base API: servers, flavors, os-services, os-hypervisors,
          os-migrations, os-instance-actions (events for admins only);
          server actions os-stop, os-start, reboot, pause, unpause,
          suspend, resume, shelve, shelveOffload, unshelve, rebuild,
          createImage, lock, unlock, rescue, unrescue;
          os-keypairs, os-availability-zone, os-simple-tenant-usage,
          os-aggregates, os-server-groups (affinity, anti-affinity).
* 2.2   - os-keypairs: ``type`` (ssh, x509); create 201, delete 204.
* 2.3   - Server show/detail: more OS-EXT-SRV-ATTR fields for admins.
* 2.6   - ``POST /servers/{id}/remote-consoles``: no console proxy
          here, so every console type is unavailable (400, as upstream
          for a console its compute does not enable).
* 2.8   - Remote consoles: the ``mks`` protocol (``webmks`` type).
* 2.9   - Servers: ``locked``.
* 2.10  - os-keypairs: ``user_id`` (administrators, for another user).
* 2.11  - os-services: ``forced_down`` in responses;
          ``PUT /os-services/force-down``.
* 2.13  - os-server-groups: ``project_id`` and ``user_id``.
* 2.15  - os-server-groups: soft-affinity and soft-anti-affinity.
* 2.16  - Servers: ``host_status`` for admins.
* 2.19  - Servers: ``description`` (create, update, rebuild).
* 2.21  - os-instance-actions: the actions of a deleted server.
* 2.23  - os-migrations: ``migration_type`` and links.
* 2.26  - Servers: ``tags``; /servers/{id}/tags; tag filters of the
          server list.
* 2.31  - ``GET /os-console-auth-tokens/{token}`` (administrators;
          before: a 400): no token is issued here, so a 404.
* 2.33  - os-hypervisors: paging with ``limit`` and ``marker``.
* 2.35  - os-keypairs: paging with ``limit`` / ``marker`` (a name) and
          ``keypairs_links``.
* 2.37  - Server create: ``networks`` is required (``auto``/``none``).
* 2.38  - Server list: an unknown ``status`` filter is a 400.
* 2.39  - createImage: no metadata_items quota check.
* 2.40  - os-simple-tenant-usage: paging with ``limit`` / ``marker``
          and ``tenant_usages_links``.
* 2.41  - os-aggregates: ``uuid``.
* 2.45  - createImage: ``{"image_id": ...}`` instead of ``Location``.
* 2.47  - Servers: ``flavor`` is embedded (vcpus, ram, disk, ...).
* 2.51  - os-instance-actions: events for whoever sees the action, the
          traceback for admins only; os-server-external-events:
          ``volume-extended``.
* 2.52  - Server create: ``tags``.
* 2.53  - os-services and os-hypervisors: identified by UUID;
          ``PUT /os-services/{uuid}`` with status and forced_down;
          os-hypervisors: an unknown query parameter is a 400.
* 2.54  - rebuild: ``key_name``.
* 2.55  - Flavors: ``description`` (create, show, list, detail) and
          ``PUT /flavors/{id}`` to change it.
* 2.56  - Server action ``migrate``: an optional target ``host``
          (``migrate``, ``resize``, ``confirmResize`` and
          ``revertResize`` themselves exist from 2.1).
* 2.57  - Server create and rebuild: ``personality`` is no longer
          accepted; rebuild takes ``user_data``.
* 2.58  - os-instance-actions: ``updated_at``, paging with ``limit`` /
          ``marker`` and ``links``, ``changes-since``.
* 2.59  - os-migrations: ``uuid``, paging with ``limit`` / ``marker``
          and ``migrations_links``, ``changes-since``.
* 2.60  - Multiattach volumes: no volumes here; nothing changes.
* 2.61  - Flavors: ``extra_specs`` in show, detail, create and update
          (for whoever may list extra specs).
* 2.62  - os-instance-actions: events show ``hostId``, and ``host`` to
          whoever sees tracebacks.
* 2.63  - Servers: ``trusted_image_certificates`` on create and rebuild,
          shown in show/detail/rebuild (kept, never verified: no image
          is downloaded).
* 2.64  - os-server-groups: ``policy`` and ``rules`` instead of
          ``policies`` and ``metadata``.
* 2.65  - Abort a queued/preparing live migration: no live migration
          here; nothing changes.
* 2.66  - ``changes-before`` on the server list, os-instance-actions and
          os-migrations.
* 2.67  - Server create: ``volume_type`` in ``block_device_mapping_v2``
          items (validated as upstream; no volumes here).
* 2.68  - evacuate: ``force`` is no longer accepted (400); forced live
          migration is gone too (no live migration here).
* 2.69  - Partial results for servers and services in down cells: no
          cells here; nothing changes.
* 2.70  - Device tags of volume attachments and interfaces: neither API
          is served; nothing changes.
* 2.71  - Servers: ``server_groups`` in show, update and rebuild.
* 2.72  - Neutron ports with a resource request on create: no
          networking here; nothing changes.
* 2.73  - lock: ``locked_reason``; servers: ``locked_reason`` in show,
          detail, update and rebuild; ``locked`` list filter and sort key.
* 2.74  - Server create: ``host`` / ``hypervisor_hostname``
          (administrators), a destination the scheduler still checks.
* 2.75  - Unknown query parameters are a 400 on the lists of servers,
          flavors, keypairs (and keypair show/delete), limits,
          quota-sets, server groups, services and tenant usage; sort
          keys upstream ignored are a 400; update and rebuild answer
          the full server (before: upstream's smaller view); flavor
          ``swap`` 0 instead of ""; hypervisors' ``servers`` always
          there with ``with_servers``.
* 2.76  - os-server-external-events: ``power-update`` (POWER_ON /
          POWER_OFF): a ``start`` / ``stop`` action and the server's
          state follows (ironic and fake drivers).
* 2.77  - unshelve: ``availability_zone`` for an offloaded server (409
          otherwise, 400 for a zone without compute services).
* 2.78  - ``GET /servers/{id}/topology``: no NUMA here, so no nodes.
* 2.79  - Volume attachments' ``delete_on_termination``: no volume
          attachment API here; nothing changes.
* 2.80  - os-migrations: ``user_id`` and ``project_id`` (the requester)
          as fields and filters.
* 2.81  - ``POST /os-aggregates/{id}/images``: validated as upstream
          and accepted (202); no driver here keeps an image cache.
* 2.82  - os-server-external-events: ``accelerator-request-bound``
          (tag required); no accelerators here: logged only.
* 2.83  - Server list: ``availability_zone``, ``config_drive``,
          ``key_name``, ``created_at``, ``launched_at``,
          ``terminated_at``, ``power_state``, ``task_state``,
          ``vm_state``, ``progress`` and ``user_id`` filters for everyone
          (before: administrators only, ignored for others).
* 2.84  - os-instance-actions: each event's ``details`` (the message of
          a failure) for whoever ``events:details`` allows (admins).
* 2.85  - ``PUT /servers/{id}/os-volume_attachments/{volume_id}``:
          ``delete_on_termination`` (validated as upstream); no volumes
          here, so no attachment is found (404).
* 2.86  - Flavor extra specs: known specs (hw, hw_rng, hw_video, os,
          quota, resources, trait, capabilities, accel, ...) are
          validated on create and update.
* 2.87  - rescue: upstream may rescue a server booted from a volume;
          no server boots from a volume here, so rescue (an action of
          every version, see doc/source/api/compute-api.rst) behaves
          the same before and after.
* 2.88  - os-hypervisors detail and show: no vcpus, vcpus_used,
          memory_mb, memory_mb_used, free_ram_mb, local_gb,
          local_gb_used, free_disk_gb, disk_available_least,
          running_vms, current_workload, cpu_info; ``uptime`` added
          (asked of the compute agent; null when it cannot tell);
          ``/os-hypervisors/statistics`` and
          ``/os-hypervisors/{id}/uptime`` are 404.
* 2.89  - os-volume_attachments: ``attachment_id`` and ``bdm_uuid``
          instead of ``id``. No volumes here: the list of a server's
          attachments is always empty and showing one is a 404; attach,
          swap and detach are not offered (405).
* 2.90  - Servers: ``hostname`` on create, update and rebuild (one
          RFC 1123 label; a 400 with more than one server to create);
          without it the host name is derived from the name, as
          before; ``OS-EXT-SRV-ATTR:hostname`` shown to everyone (and
          ``?hostname=`` a filter for everyone).
* 2.91  - unshelve: ``host`` (administrators) for an offloaded server,
          and ``availability_zone: null`` to unpin it (409 for a
          shelved server or a host outside the zone, 400 for an unknown
          host or a zone without compute services).
* 2.92  - os-keypairs: ``public_key`` is required on create (no key is
          generated); names may also hold ``@`` and ``.``.
* 2.93  - Rebuild of volume-backed servers: no volumes here (every
          server boots from an image); nothing changes.
* 2.94  - Servers: ``hostname`` may be an FQDN (upstream's ``fqdn``:
          letters, digits, ``-._``, up to 255 characters).
* 2.95  - evacuate: the server ends stopped (SHUTOFF) on its
          destination.
* 2.96  - Servers (show, detail, update, rebuild):
          ``pinned_availability_zone``.
* 2.97  - ``/servers/{id}/shares`` (Manila share attachments): no share
          service here: the list is empty, show is a 404, attach answers
          upstream's 409 for a compute without virtio-fs (a server not
          stopped: 409), detach a 404 (409 unless stopped or in error).
* 2.98  - Servers: ``image.properties`` in show, detail, update and
          rebuild (the standard properties of the image, as copied at
          create and rebuild).
* 2.99  - Remote consoles: ``spice-direct`` type accepted (no console
          proxy here: every console type is unavailable, a 400, as
          upstream for a disabled console); os-console-auth-tokens:
          unknown query parameters are a 400 (no token is ever issued:
          404, so no ``tls_port`` to show).
* 2.100 - Servers: ``scheduler_hints`` given at create in show, detail,
          update and rebuild.
"""

from collections.abc import Iterable

from lite_common.wsgi import microversion

MIN_VERSION = '2.1'
MAX_VERSION = '2.100'
LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'

#: Version of each versioned feature, for handlers, schemas and views
#: (the history above says what each changes; a name marked upstream's
#: is a change upstream made that the history does not list).
KEYPAIR_TYPE = '2.2'
#: Server show/detail: more ``OS-EXT-SRV-ATTR`` fields for admins.
EXTENDED_SERVER_ATTRS = '2.3'
REMOTE_CONSOLES = '2.6'
MKS_CONSOLE = '2.8'
SERVER_LOCKED = '2.9'
#: os-keypairs: ``user_id`` (administrators, for another user).
KEYPAIR_USER_ID = '2.10'
SERVICE_FORCED_DOWN = '2.11'
#: os-server-groups: ``project_id`` and ``user_id``.
SERVER_GROUP_OWNER = '2.13'
#: evacuate: no ``onSharedStorage``, no ``adminPass`` answered (upstream's).
EVACUATE_NO_SHARED_STORAGE = '2.14'
SOFT_AFFINITY = '2.15'
HOST_STATUS = '2.16'
SERVER_DESCRIPTION = '2.19'
#: os-instance-actions: the actions of a deleted server.
DELETED_SERVER_ACTIONS = '2.21'
#: os-migrations: ``migration_type`` and links.
MIGRATION_TYPE = '2.23'
SERVER_TAGS = '2.26'
#: os-hypervisors: ``cpu_info`` an object, not JSON text (upstream's).
HYPERVISOR_CPU_INFO_OBJECT = '2.28'
#: evacuate: ``force``; a target host is checked unless forced (upstream's).
EVACUATE_FORCE = '2.29'
CONSOLE_AUTH_TOKENS = '2.31'
HYPERVISOR_PAGING = '2.33'
KEYPAIR_PAGING = '2.35'
#: Limits and quota sets: no network resources (upstream's).
NO_NETWORK_QUOTAS = '2.36'
#: Server create: ``networks`` is required.
NETWORKS_REQUIRED = '2.37'
#: Server list: an unknown ``status`` filter is a 400.
STRICT_STATUS_FILTER = '2.38'
#: createImage: no metadata_items quota check; limits: no maxImageMeta.
NO_IMAGE_METADATA_QUOTA = '2.39'
#: os-simple-tenant-usage: paging.
USAGE_PAGING = '2.40'
AGGREGATE_UUID = '2.41'
#: createImage: ``{"image_id": ...}`` instead of ``Location``.
IMAGE_ID_IN_BODY = '2.45'
#: Servers: ``flavor`` is embedded (before: an id and links).
EMBEDDED_FLAVOR = '2.47'
#: Server diagnostics: the standard form, not a free-form dict (upstream's).
STANDARD_DIAGNOSTICS = '2.48'
#: Quota class sets: server groups, no network resources (upstream's).
QUOTA_CLASS_SERVER_GROUPS = '2.50'
#: os-instance-actions: events for whoever sees the action.
ACTION_EVENTS_FOR_ALL = '2.51'
#: os-server-external-events: ``volume-extended``.
VOLUME_EXTENDED_EVENT = '2.51'
#: Server create: ``tags``.
CREATE_TAGS = '2.52'
#: os-services and os-hypervisors: identified by UUID; their new queries.
SERVICE_UUIDS = '2.53'
REBUILD_KEY_NAME = '2.54'
FLAVOR_DESCRIPTION = '2.55'
#: Server action ``migrate``: an optional target ``host``.
MIGRATE_HOST = '2.56'
#: Create, rebuild: no ``personality`` (nor its quotas); rebuild user_data.
NO_PERSONALITY = '2.57'
#: os-instance-actions: ``updated_at``, paging, ``changes-since``.
ACTION_PAGING = '2.58'
#: os-migrations: ``uuid``, paging, ``changes-since``.
MIGRATION_PAGING = '2.59'
FLAVOR_EXTRA_SPECS = '2.61'
#: os-instance-actions: events show ``hostId`` (and ``host`` to admins).
ACTION_EVENT_HOST = '2.62'
#: Servers: ``trusted_image_certificates``.
TRUSTED_CERTS = '2.63'
#: os-server-groups: ``policy`` and ``rules`` instead of ``policies``.
SERVER_GROUP_POLICY = '2.64'
CHANGES_BEFORE = '2.66'
#: Server create: ``volume_type`` in ``block_device_mapping_v2`` items.
BDM_VOLUME_TYPE = '2.67'
#: evacuate: ``force`` is no longer accepted.
EVACUATE_NO_FORCE = '2.68'
#: Servers: ``server_groups`` in show, update and rebuild.
SERVER_GROUPS_SHOWN = '2.71'
#: lock: ``locked_reason`` (shown on servers); ``locked`` filter, sort key.
LOCKED_REASON = '2.73'
#: Server create: ``host`` / ``hypervisor_hostname`` (administrators).
CREATE_ON_HOST = '2.74'
#: Unknown query parameters (and sort keys upstream ignored) are a 400.
STRICT_QUERY = '2.75'
#: Full server from update/rebuild; flavor swap 0; hypervisors' servers.
CONSISTENT_BODIES = '2.75'
POWER_UPDATE_EVENT = '2.76'
#: unshelve: ``availability_zone``.
UNSHELVE_ZONE = '2.77'
SERVER_TOPOLOGY = '2.78'
#: os-migrations: ``user_id`` and ``project_id`` fields and filters.
MIGRATION_OWNER = '2.80'
AGGREGATE_IMAGE_CACHE = '2.81'
#: os-server-external-events: ``accelerator-request-bound``.
ACCELERATOR_EVENT = '2.82'
#: Server list: the filters of a server's own attributes for everyone.
NON_ADMIN_FILTERS = '2.83'
#: os-instance-actions: each event's ``details``.
ACTION_EVENT_DETAILS = '2.84'
#: ``PUT /servers/{id}/os-volume_attachments/{volume_id}``: an update.
VOLUME_ATTACHMENT_UPDATE = '2.85'
#: Flavor extra specs: known specs are validated.
EXTRA_SPEC_VALIDATION = '2.86'
#: os-hypervisors: no usage fields, ``uptime``; statistics, uptime gone.
NO_HYPERVISOR_USAGE = '2.88'
#: Servers: ``hostname`` (given, shown, filtered on by everyone).
SERVER_HOSTNAME = '2.90'
#: unshelve: ``host`` and a ``null`` zone.
UNSHELVE_HOST = '2.91'
#: os-keypairs: ``public_key`` is required (no key is generated).
NO_KEYPAIR_GENERATION = '2.92'
#: Servers: ``hostname`` may be an FQDN.
FQDN_HOSTNAME = '2.94'
#: evacuate: the server ends stopped on its destination.
EVACUATE_STOPPED = '2.95'
PINNED_AVAILABILITY_ZONE = '2.96'
SERVER_SHARES = '2.97'
#: Servers: ``image.properties``.
IMAGE_PROPERTIES = '2.98'
#: Remote consoles: the ``spice-direct`` type.
SPICE_DIRECT = '2.99'
#: os-console-auth-tokens: an unknown query parameter is a 400.
STRICT_TOKEN_QUERY = '2.99'
SCHEDULER_HINTS = '2.100'


def before(version: str) -> str:
    """The version just below ``version``: the last one without its
    change, for inclusive upper bounds (``before(EMBEDDED_FLAVOR)`` is
    2.46)."""
    parsed = microversion.APIVersion.parse(version)
    if not parsed.minor:
        raise ValueError(f'No version before {version}')
    return f'{parsed.major}.{parsed.minor - 1}'


def _response_headers(
    versions: microversion.VersionRange, version: microversion.APIVersion
) -> Iterable[tuple[str, str]]:
    return [
        ('OpenStack-API-Version', f'compute {version}'),
        (LEGACY_HEADER, str(version)),
        ('Vary', f'OpenStack-API-Version, {LEGACY_HEADER}'),
    ]


VERSIONS = microversion.VersionRange(
    'compute', MIN_VERSION, MAX_VERSION, LEGACY_HEADER, _response_headers
)
