"""Server bodies as the Compute API renders them, per microversion."""

import hashlib
from typing import Any

import webob

from lite_common.wsgi.microversion import APIVersion
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.views import image_and_hints
from nova_lite.common import states
from nova_lite.compute_api import trusted_certs

_STATUS: dict[str, dict[str | None, str]] = {
    states.BUILDING: {None: 'BUILD'},
    states.ACTIVE: {
        None: 'ACTIVE',
        states.REBOOTING: 'REBOOT',
        states.REBOOTING_HARD: 'HARD_REBOOT',
        states.REBUILDING: 'REBUILD',
        states.REBUILD_SPAWNING: 'REBUILD',
        states.MIGRATING: 'MIGRATING',
        states.RESIZE_PREP: 'RESIZE',
        states.RESIZE_MIGRATING: 'RESIZE',
        states.RESIZE_MIGRATED: 'RESIZE',
        states.RESIZE_FINISH: 'RESIZE',
    },
    states.STOPPED: {
        None: 'SHUTOFF',
        states.RESIZE_PREP: 'RESIZE',
        states.RESIZE_MIGRATING: 'RESIZE',
        states.RESIZE_MIGRATED: 'RESIZE',
        states.RESIZE_FINISH: 'RESIZE',
        states.REBUILDING: 'REBUILD',
        states.REBUILD_SPAWNING: 'REBUILD',
    },
    states.RESIZED: {
        None: 'VERIFY_RESIZE',
        states.RESIZE_REVERTING: 'REVERT_RESIZE',
    },
    states.PAUSED: {None: 'PAUSED', states.MIGRATING: 'MIGRATING'},
    states.SUSPENDED: {None: 'SUSPENDED'},
    states.RESCUED: {None: 'RESCUE'},
    states.ERROR: {
        None: 'ERROR',
        states.REBUILDING: 'REBUILD',
        states.REBUILD_SPAWNING: 'REBUILD',
    },
    states.DELETED: {None: 'DELETED'},
    states.SOFT_DELETED: {None: 'SOFT_DELETED'},
    states.SHELVED: {None: 'SHELVED'},
    states.SHELVED_OFFLOADED: {None: 'SHELVED_OFFLOADED'},
}


def states_for(statuses: list[str]) -> tuple[list[str], list[str | None]]:
    """The vm_states and task_states that show as any of ``statuses``
    (case-insensitive; unknown ones match nothing), as upstream's
    ``task_and_vm_state_from_status``. None among the task states: a
    status given by the vm_state alone, so no task state filter."""
    wanted = {status.upper() for status in statuses}
    vm_states: set[str] = set()
    task_states: set[str | None] = set()
    for vm_state, tasks in _STATUS.items():
        for task_state, status in tasks.items():
            if status in wanted:
                vm_states.add(vm_state)
                task_states.add(task_state)
    return sorted(vm_states), sorted(task_states, key=str)


#: The task states in which an ``active`` server is not ACTIVE (REBOOT,
#: REBUILD, MIGRATING, RESIZE).
ACTIVE_BUSY_TASKS = frozenset(
    task for task in _STATUS[states.ACTIVE] if task is not None
)

_PROGRESS_STATUSES = {
    'ACTIVE',
    'BUILD',
    'REBUILD',
    'RESIZE',
    'VERIFY_RESIZE',
    'MIGRATING',
}


def status(vm_state: str, task_state: str | None) -> str:
    tasks = _STATUS.get(vm_state)
    if tasks is None:
        return 'UNKNOWN'
    return tasks.get(task_state, tasks[None])


def host_id(project_id: str, host: str | None) -> str:
    if not host:
        return ''
    return hashlib.sha224((project_id + host).encode()).hexdigest()


class ServerView:
    """Renders instances (row dicts) for one request.

    Everything that depends only on the request (microversion checks,
    the base URL) is worked out once here, not once per server: a
    detailed list renders up to ``[api]max_limit`` servers.
    """

    def __init__(
        self,
        req: webob.Request,
        host_status: dict[str, str] | None = None,
        tags: dict[str, list[str]] | None = None,
        groups: dict[str, list[str]] | None = None,
    ) -> None:
        version: APIVersion = util.version(req)
        self.is_admin = util.context(req).is_admin
        self.base = util.base_url(req)
        self.host_status = host_status or {}
        self.tags = tags or {}
        # Only for one server (show, update, rebuild), from 2.71.
        self.groups = (
            groups if version.at_least(mv.SERVER_GROUPS_SHOWN) else None
        )
        self.embedded_flavor = version.at_least(mv.EMBEDDED_FLAVOR)
        self.extended_attrs = version.at_least(mv.EXTENDED_SERVER_ATTRS)
        self.image_and_hints = image_and_hints.ImageAndHints(version)
        self.optional = {  # field -> version it appears in
            'locked': version.at_least(mv.SERVER_LOCKED),
            'host_status': version.at_least(mv.HOST_STATUS) and self.is_admin,
            'description': version.at_least(mv.SERVER_DESCRIPTION),
            'tags': version.at_least(mv.SERVER_TAGS),
            'trusted_certs': version.at_least(mv.TRUSTED_CERTS),
            'locked_reason': version.at_least(mv.LOCKED_REASON),
            # Admins see it from 2.3 with the other extended attributes.
            'hostname': version.at_least(mv.SERVER_HOSTNAME)
            and not self.is_admin,
            'pinned_availability_zone': version.at_least(
                mv.PINNED_AVAILABILITY_ZONE
            ),
        }

    def brief(self, inst: dict[str, Any]) -> dict[str, Any]:
        return {
            'id': inst['uuid'],
            'name': inst['display_name'] or '',
            'links': util.links_at(self.base, 'servers', inst['uuid']),
        }

    def _image(self, inst: dict[str, Any]) -> Any:
        if not inst['image_ref']:
            return ''
        return {
            'id': inst['image_ref'],
            'links': [
                {
                    'rel': 'bookmark',
                    'href': f'{self.base}/images/{inst["image_ref"]}',
                }
            ],
        }

    def _flavor(self, inst: dict[str, Any]) -> dict[str, Any]:
        flavor = inst['flavor'] or {}
        if self.embedded_flavor:
            return {
                'vcpus': flavor.get('vcpus'),
                'ram': flavor.get('memory_mb'),
                'disk': flavor.get('root_gb'),
                'ephemeral': flavor.get('ephemeral_gb', 0),
                'swap': flavor.get('swap', 0),
                'original_name': flavor.get('name'),
                'extra_specs': flavor.get('extra_specs', {}),
            }
        return {
            'id': flavor.get('flavorid'),
            'links': [
                {
                    'rel': 'bookmark',
                    'href': f'{self.base}/flavors/{flavor.get("flavorid")}',
                }
            ],
        }

    def detail(self, inst: dict[str, Any]) -> dict[str, Any]:
        server_status = status(inst['vm_state'], inst['task_state'])
        body = self.brief(inst)
        body.update(
            {
                'status': server_status,
                'tenant_id': inst['project_id'],
                'user_id': inst['user_id'],
                'metadata': inst['metadata'] or {},
                'hostId': host_id(inst['project_id'], inst['host']),
                'image': self._image(inst),
                'flavor': self._flavor(inst),
                'created': util.isotime(inst['created_at']),
                'updated': util.isotime(
                    inst['updated_at'] or inst['created_at']
                ),
                'addresses': {},
                'accessIPv4': inst['access_ip_v4'] or '',
                'accessIPv6': inst['access_ip_v6'] or '',
                'OS-DCF:diskConfig': 'MANUAL',
                'OS-EXT-AZ:availability_zone': inst['availability_zone'] or '',
                'config_drive': inst['config_drive'] or '',
                'key_name': inst['key_name'],
                'OS-SRV-USG:launched_at': util.microsecond_time(
                    inst['launched_at']
                ),
                'OS-SRV-USG:terminated_at': util.microsecond_time(
                    inst['terminated_at']
                ),
                'OS-EXT-STS:task_state': inst['task_state'],
                'OS-EXT-STS:vm_state': inst['vm_state'],
                'OS-EXT-STS:power_state': inst['power_state'],
                'os-extended-volumes:volumes_attached': [],
            }
        )
        if server_status in _PROGRESS_STATUSES:
            body['progress'] = 100 if server_status == 'ACTIVE' else 0
        if self.is_admin:
            self._admin_fields(body, inst)
        self._optional_fields(body, inst)
        self.image_and_hints.add(body, inst)
        if inst['fault'] and server_status in ('ERROR', 'DELETED'):
            body['fault'] = {
                k: v
                for k, v in inst['fault'].items()
                if k in ('code', 'message', 'created')
            }
        return body

    def _optional_fields(
        self, body: dict[str, Any], inst: dict[str, Any]
    ) -> None:
        shown = self.optional
        if shown['locked']:
            body['locked'] = bool(inst.get('locked'))
        if shown['host_status']:
            body['host_status'] = self.host_status.get(inst['host'] or '', '')
        if shown['description']:
            body['description'] = inst['display_description']
        if shown['tags']:
            body['tags'] = self.tags.get(inst['uuid'], [])
        if shown['trusted_certs']:
            body['trusted_image_certificates'] = trusted_certs.shown(
                inst.get('system_metadata')
            )
        if self.groups is not None:
            body['server_groups'] = self.groups.get(inst['uuid'], [])
        if shown['locked_reason']:
            body['locked_reason'] = inst.get('locked_reason')
        if shown['hostname']:
            body['OS-EXT-SRV-ATTR:hostname'] = inst.get('hostname')
        if shown['pinned_availability_zone']:
            # The zone asked at create or by an unshelve; null if none.
            body['pinned_availability_zone'] = inst.get(
                'pinned_availability_zone'
            )

    def _admin_fields(
        self, body: dict[str, Any], inst: dict[str, Any]
    ) -> None:
        body['OS-EXT-SRV-ATTR:host'] = inst['host']
        body['OS-EXT-SRV-ATTR:hypervisor_hostname'] = inst['node']
        body['OS-EXT-SRV-ATTR:instance_name'] = 'instance-%08x' % inst['id']
        if self.extended_attrs:
            # Kept in system_metadata at create (no columns for them).
            system = inst.get('system_metadata') or {}
            body.update(
                {
                    'OS-EXT-SRV-ATTR:reservation_id': system.get(
                        'reservation_id', ''
                    ),
                    'OS-EXT-SRV-ATTR:launch_index': int(
                        system.get('launch_index', 0)
                    ),
                    'OS-EXT-SRV-ATTR:hostname': inst.get('hostname'),
                    'OS-EXT-SRV-ATTR:kernel_id': '',
                    'OS-EXT-SRV-ATTR:ramdisk_id': '',
                    'OS-EXT-SRV-ATTR:root_device_name': None,
                    'OS-EXT-SRV-ATTR:user_data': inst.get('user_data'),
                }
            )
