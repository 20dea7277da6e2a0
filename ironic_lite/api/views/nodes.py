"""Node JSON as the Bare Metal API writes it, by microversion.

The field list of each version is worked out once (cached); turning a
database row into a node document is then one dict comprehension plus
the links, so that a detailed list of hundreds of nodes stays cheap.
"""

from collections.abc import Callable
import functools
import re
from typing import Any
from typing import cast

from oslo_utils import strutils

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from lite_common.wsgi.microversion import APIVersion

#: Every node field and the version it appeared in (upstream's).
FIELD_VERSIONS: dict[str, str] = {
    'uuid': '1.1',
    'name': mv.NAME,
    'chassis_uuid': '1.1',
    'driver': '1.1',
    'driver_info': '1.1',
    'driver_internal_info': '1.3',
    'extra': '1.1',
    'instance_info': '1.1',
    'instance_uuid': '1.1',
    'properties': '1.1',
    'power_state': '1.1',
    'target_power_state': '1.1',
    'provision_state': '1.1',
    'target_provision_state': '1.1',
    'provision_updated_at': '1.1',
    'last_error': '1.1',
    'maintenance': '1.1',
    'maintenance_reason': '1.1',
    'reservation': '1.1',
    'console_enabled': '1.1',
    'created_at': '1.1',
    'updated_at': '1.1',
    'clean_step': mv.CLEAN_STEP,
    'resource_class': mv.RESOURCE_CLASS,
    'deploy_interface': mv.INTERFACES,
    'management_interface': mv.INTERFACES,
    'power_interface': mv.INTERFACES,
    'boot_interface': mv.INTERFACES,
    'console_interface': mv.INTERFACES,
    'inspect_interface': mv.INTERFACES,
    'raid_interface': mv.INTERFACES,
    'vendor_interface': mv.INTERFACES,
    'network_interface': mv.NETWORK_INTERFACE,
    'storage_interface': mv.STORAGE_INTERFACE,
    'rescue_interface': mv.RESCUE,
    'bios_interface': mv.BIOS,
    'firmware_interface': mv.FIRMWARE,
    'fault': mv.FAULT,
    'automated_clean': mv.AUTOMATED_CLEAN,
    'conductor': mv.CONDUCTOR,
    'description': mv.DESCRIPTION,
    'links': '1.1',
    'ports': '1.1',
    'states': mv.STATES_LINK,
    'portgroups': mv.PORTGROUP_LINKS,
    'volume': mv.VOLUME,
    'traits': mv.TRAITS,
    'inspection_started_at': mv.INSPECT_STATES,
    'inspection_finished_at': mv.INSPECT_STATES,
    'raid_config': mv.RAID,
    'target_raid_config': mv.RAID,
    'deploy_step': mv.DEPLOY_STEP,
    'conductor_group': mv.CONDUCTOR_GROUP,
    'protected': mv.PROTECTED,
    'protected_reason': mv.PROTECTED,
    'owner': mv.OWNER,
    'allocation_uuid': mv.ALLOCATIONS,
    'retired': mv.RETIRED,
    'retired_reason': mv.RETIRED,
    'lessee': mv.LESSEE,
    'network_data': mv.NETWORK_DATA,
    'boot_mode': mv.BOOT_MODE,
    'secure_boot': mv.BOOT_MODE,
    'shard': mv.SHARD,
    'parent_node': mv.PARENT_NODE,
    'service_step': mv.SERVICE,
    'disable_power_off': mv.DISABLE_POWER_OFF,
    'instance_name': mv.INSTANCE_NAME,
    'health': mv.HEALTH,
}

#: The fields of a node in a list without ``detail``.
LIST_FIELDS = (
    'uuid',
    'name',
    'instance_uuid',
    'power_state',
    'provision_state',
    'maintenance',
    'links',
)

_TIMES = frozenset(
    {
        'created_at',
        'updated_at',
        'provision_updated_at',
        'inspection_started_at',
        'inspection_finished_at',
    }
)
_COMPUTED = frozenset(
    {
        'allocation_uuid',
        'links',
        'ports',
        'portgroups',
        'states',
        'conductor',
        'volume',
        'traits',
        'chassis_uuid',
    }
)
#: Substrings of driver_info keys whose values are never shown.
_SECRET_PARTS = (
    'password',
    'secret',
    'token',
    'passphrase',
    'pswd',
    'private_key',
    'sslkey',
    'snmp_auth_key',
    'snmp_priv_key',
)
MASK = '******'
#: The provision state shown as null before 1.2 (upstream's NOSTATE).
AVAILABLE = 'available'
INSPECT_WAIT = 'inspect wait'
_TEMP_URL_SIG = re.compile(r'(temp_url_sig=)[^&\s"\']+')
#: Strings without any of the words ``mask_password`` looks for are
#: returned as they are, without its slower scan (an empty pattern, if
#: oslo.utils ever renames its list, sends every string to it).
_MAY_HOLD_PASSWORD = re.compile(
    '|'.join(
        re.escape(key) for key in getattr(strutils, '_SANITIZE_KEYS', [''])
    ),
    re.IGNORECASE,
)
#: Either of the above, or a temp URL signature: one search decides that
#: most strings are shown as they are.
_MAY_HOLD_SECRET = re.compile(
    _MAY_HOLD_PASSWORD.pattern + '|temp_url_sig=', re.IGNORECASE
)

ConductorOf = Callable[[dict[str, Any]], str | None]
TraitsOf = Callable[[list[int]], dict[int, list[str]]]
ChassisOf = Callable[[list[int | None]], dict[int, str]]
#: Hides fields of a node (the row, the node document) from a caller.
Redact = Callable[[dict[str, Any], dict[str, Any]], None]


@functools.lru_cache(maxsize=256)
def fields_at(version: APIVersion) -> tuple[str, ...]:
    """Every node field of ``version``, in the documented order."""
    return tuple(
        name
        for name, since in FIELD_VERSIONS.items()
        if version.at_least(since)
    )


@functools.lru_cache(maxsize=256)
def list_fields_at(version: APIVersion) -> tuple[str, ...]:
    allowed = set(fields_at(version))
    return tuple(name for name in LIST_FIELDS if name in allowed)


@functools.lru_cache(maxsize=4096)
def is_secret(key: str) -> bool:
    """Whether values of ``key`` are secrets (cached: the same keys
    come back in every node of a list)."""
    lowered = key.lower()
    return any(part in lowered for part in _SECRET_PARTS)


#: Values that hold no secret and need no look (most of a node's).
_PLAIN = (int, float, bool, type(None))


def mask_secrets(info: Any) -> Any:
    """``info`` with every secret replaced by ``******``, at any depth
    (as upstream's ``mask_dict_password``): the value of a password-like
    key, and ``password=...`` or ``temp_url_sig=...`` inside strings."""
    if isinstance(info, dict):
        return {
            key: (
                MASK
                if value and is_secret(str(key))
                else value
                if isinstance(value, _PLAIN)
                else mask_secrets(value)
            )
            for key, value in info.items()
        }
    if isinstance(info, list):
        return [mask_secrets(item) for item in info]
    if isinstance(info, str):
        if not _MAY_HOLD_SECRET.search(info):
            return info
        if _MAY_HOLD_PASSWORD.search(info):
            info = strutils.mask_password(info, MASK)
        return _TEMP_URL_SIG.sub(r'\1' + MASK, info)
    return info


def mask_instance_info(info: dict[str, Any] | None) -> dict[str, Any]:
    """``instance_info`` as shown: secrets masked, and the config drive
    (user data, often with secrets, and large) never shown."""
    masked = mask_secrets(info or {})
    if masked.get('configdrive'):
        masked['configdrive'] = MASK
    return cast('dict[str, Any]', masked)


#: Fields shown with their secrets masked.
MASKED_FIELDS: dict[str, Callable[[Any], Any]] = {
    'driver_info': lambda value: mask_secrets(value or {}),
    'driver_internal_info': lambda value: mask_secrets(value or {}),
    'instance_info': mask_instance_info,
}


class NodeView:
    """Renders nodes for one request (one base URL, one version)."""

    def __init__(
        self,
        base: str,
        fields: tuple[str, ...],
        conductor_of: ConductorOf | None = None,
        legacy: dict[str, str | None] | None = None,
        redact: Redact | None = None,
        traits_of: TraitsOf | None = None,
        chassis_of: ChassisOf | None = None,
        allocation_of: ChassisOf | None = None,
    ) -> None:
        """``legacy``: provision states shown as older versions named
        them (:func:`legacy_states`); ``redact``: hides fields from this
        caller;
        ``traits_of``: the traits of nodes by id (one query a page);
        ``chassis_of``: the uuids of chassis by id (idem)."""
        self.base = base
        self.fields = fields
        self.conductor_of = conductor_of
        self.legacy = (legacy or {}) if 'provision_state' in fields else {}
        self.redact = redact
        self._stored = tuple(f for f in fields if f not in _COMPUTED)
        self._times = tuple(f for f in fields if f in _TIMES)
        self._computed = tuple(f for f in fields if f in _COMPUTED)
        self.traits_of = traits_of if 'traits' in fields else None
        self._traits: dict[int, list[str]] = {}
        self.chassis_of = chassis_of if 'chassis_uuid' in fields else None
        self._chassis: dict[int, str] = {}
        self.allocation_of = (
            allocation_of if 'allocation_uuid' in fields else None
        )
        self._allocations: dict[int, str] = {}

    def _links(self, uuid: str, suffix: str = '') -> list[dict[str, str]]:
        return util.links_at(self.base, 'nodes', uuid, suffix)

    def _load_links(self, rows: list[dict[str, Any]]) -> None:
        if self.allocation_of is not None:
            wanted = [
                row.get('allocation_id')
                for row in rows
                if row.get('allocation_id') not in self._allocations
            ]
            if any(wanted):
                self._allocations.update(self.allocation_of(wanted))
        if self.chassis_of is not None:
            chassis = [
                row.get('chassis_id')
                for row in rows
                if row.get('chassis_id') not in self._chassis
            ]
            if any(chassis):
                self._chassis.update(self.chassis_of(chassis))
        if self.traits_of is not None:
            nodes = [
                row['id'] for row in rows if row['id'] not in self._traits
            ]
            if nodes:
                self._traits.update(self.traits_of(nodes))

    def render(self, row: dict[str, Any]) -> dict[str, Any]:
        self._load_links([row])
        node = {name: row.get(name) for name in self._stored}
        for name in self._times:
            node[name] = util.isotime(row.get(name))
        for name, mask in MASKED_FIELDS.items():
            if name in node:
                node[name] = mask(node[name])
        for name in self._computed:
            node[name] = self._compute(name, row)
        state = node.get('provision_state')
        if isinstance(state, str) and state in self.legacy:
            node['provision_state'] = self.legacy[state]
        if self.redact is not None:
            self.redact(row, node)
        return node

    def _compute(self, name: str, row: dict[str, Any]) -> Any:
        uuid = row['uuid']
        if name == 'links':
            return self._links(uuid)
        if name == 'ports':
            return self._links(uuid, '/ports')
        if name == 'portgroups':
            return self._links(uuid, '/portgroups')
        if name == 'states':
            return self._links(uuid, '/states')
        if name == 'volume':
            return self._links(uuid, '/volume')
        if name == 'conductor':
            return self.conductor_of(row) if self.conductor_of else None
        if name == 'traits':
            return list(self._traits.get(row['id'], []))
        if name == 'chassis_uuid':
            return self._chassis.get(row.get('chassis_id') or 0)
        if name == 'allocation_uuid':
            return self._allocations.get(row.get('allocation_id') or 0)
        raise KeyError(name)

    def render_all(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self._load_links(rows)
        render = self.render
        return [render(row) for row in rows]


def states(row: dict[str, Any], version: APIVersion) -> dict[str, Any]:
    """``GET /v1/nodes/{id}/states`` at ``version``: the RAID
    configuration from 1.12, the boot mode from 1.75, ``available``
    as null before 1.2 (as upstream)."""
    result = {
        'console_enabled': bool(row.get('console_enabled')),
        'last_error': row['last_error'],
        'power_state': row['power_state'],
        'provision_state': row['provision_state'],
        'provision_updated_at': util.isotime(row['provision_updated_at']),
        'target_power_state': row['target_power_state'],
        'target_provision_state': row['target_provision_state'],
    }
    if version.at_least(mv.RAID):
        result['raid_config'] = row.get('raid_config') or {}
        result['target_raid_config'] = row.get('target_raid_config') or {}
    if version.at_least(mv.BOOT_MODE):
        result['boot_mode'] = row.get('boot_mode')
        result['secure_boot'] = row.get('secure_boot')
    legacy = legacy_states(version)
    if result['provision_state'] in legacy:
        result['provision_state'] = legacy[result['provision_state']]
    return result


def legacy_states(version: APIVersion) -> dict[str, str | None]:
    """Provision states as ``version`` names them, where it is older
    than the state (upstream's): ``available`` is null before 1.2,
    ``inspect wait`` is ``inspecting`` before 1.39."""
    legacy: dict[str, str | None] = {}
    if version.below(mv.AVAILABLE_STATE):
        legacy[AVAILABLE] = None
    if version.below(mv.INSPECT_WAIT):
        legacy[INSPECT_WAIT] = 'inspecting'
    return legacy
