"""BIOS settings between ironic and Redfish (upstream's rules): the
registry fields of each attribute, the checks and conversions of the
settings asked for, and what a BMC has not applied yet."""

import enum
from typing import Any

from oslo_log import log as logging
import sushy

from ironic_lite import exception

LOG = logging.getLogger(__name__)

#: The registry fields a cached setting carries (upstream's).
REGISTRY_FIELDS = (
    'attribute_type',
    'allowable_values',
    'lower_bound',
    'max_length',
    'min_length',
    'read_only',
    'reset_required',
    'unique',
    'upper_bound',
)


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _allowable(node_uuid: str, values: Any) -> list[str]:
    names = []
    for item in values or []:
        name = item.get('ValueName') or item.get('ValueDisplayName')
        if name:
            names.append(name)
        else:
            LOG.warning(
                'Cannot detect the value name for enumeration item '
                '%(item)s for node %(node)s',
                {'item': item, 'node': node_uuid},
            )
    return names


def with_registry(
    bios: Any, attributes: dict[str, Any], node_uuid: str
) -> list[dict[str, Any]]:
    """The settings (name, value) with their registry fields, when the
    BMC has a registry."""
    settings = [
        {'name': name, 'value': value} for name, value in attributes.items()
    ]
    try:
        registry = bios.get_attribute_registry()
        entries = registry.registry_entries.attributes if registry else []
    except Exception as exc:
        LOG.info(
            'Cannot get BIOS Registry attributes for node %(node)s, '
            'Error %(exc)s.',
            {'node': node_uuid, 'exc': exc},
        )
        entries = []
    by_name = {entry.name: entry for entry in entries or []}
    for setting in settings:
        entry = by_name.get(setting['name'])
        if entry is None:
            continue
        for field in REGISTRY_FIELDS:
            setting[field] = _plain(getattr(entry, field, None))
        setting['allowable_values'] = _allowable(
            node_uuid, setting['allowable_values']
        )
    return settings


def _check(cached: dict[str, Any], value: Any) -> tuple[bool, Any]:
    """Whether ``value`` suits the cached setting, and the value in the
    JSON type Redfish wants."""
    if cached.get('read_only'):
        return False, value
    kind = cached.get('attribute_type')
    if kind == 'Enumeration':
        allowed = cached.get('allowable_values')
        return (not allowed or value in allowed), value
    if kind == 'Integer':
        try:
            number = int(value)
        except (TypeError, ValueError):
            return False, value
        low, high = cached.get('lower_bound'), cached.get('upper_bound')
        return (
            (low is None or number >= low) and (high is None or number <= high)
        ), number
    if kind == 'Boolean' and isinstance(value, str):
        return True, value.lower() == 'true'
    if kind == 'String':
        size = len(str(value))
        low, high = cached.get('min_length'), cached.get('max_length')
        return (
            (low is None or size >= low) and (high is None or size <= high)
        ), value
    return True, value


def convert(
    node_uuid: str,
    settings: list[dict[str, Any]],
    cached: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """``{name: value}`` to write, checked against the cached settings
    (a setting not cached is passed as it is, as upstream).

    :raises InvalidParameterValue: a malformed setting, or values the
        registry refuses.
    """
    attributes: dict[str, Any] = {}
    invalid = []
    for setting in settings:
        if (
            not isinstance(setting, dict)
            or not isinstance(setting.get('name'), str)
            or 'value' not in setting
        ):
            raise exception.InvalidParameterValue(
                err=f'Each BIOS setting needs a "name" and a "value": '
                f'{setting!r}'
            )
        name, value = setting['name'], setting['value']
        good, value = _check(cached.get(name) or {}, value)
        if not good:
            invalid.append(name)
        attributes[name] = value
    if invalid:
        raise exception.InvalidParameterValue(
            err=f'Redfish BIOS apply_configuration failed for node '
            f'{node_uuid}: invalid value for setting(s): '
            f'{", ".join(invalid)}'
        )
    return attributes


def apply_time(bios: Any) -> Any:
    """``OnReset`` when the BMC offers it (upstream asks for it)."""
    times = getattr(bios, 'supported_apply_times', None) or []
    return (
        sushy.APPLY_TIME_ON_RESET
        if sushy.APPLY_TIME_ON_RESET in times
        else None
    )


def unapplied(bios: Any, requested: dict[str, Any]) -> dict[str, Any]:
    """The requested attributes the BMC does not report yet (upstream's
    rule: a BMC whose pending area lists only the changes must have
    emptied it of them)."""
    bios.refresh(force=True)
    current = bios.attributes or {}
    try:
        pending = bios.pending_attributes
    except (sushy.exceptions.SushyError, AttributeError):
        pending = {}
    if not isinstance(pending, dict):
        pending = {}
    purge = len(pending) <= len(requested)
    return {
        name: value
        for name, value in requested.items()
        if current.get(name) != value or (purge and name in pending)
    }
