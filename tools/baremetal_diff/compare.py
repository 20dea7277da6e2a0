"""Comparing one response of upstream Ironic with one of ironic_lite.

Pure functions, no servers: a response is reduced to its *shape* (the
set of key paths of its JSON body, e.g. ``nodes[].links[].href``) plus
the few values that must be equal on both sides (states, error
presence, links after normalization), and two shapes are compared.
"""

from collections.abc import Iterable
import dataclasses
import json
import re
from typing import Any

#: Values that must be equal wherever they appear in a body.
VALUE_KEYS = frozenset(
    {
        'provision_state',
        'target_provision_state',
        'power_state',
        'target_power_state',
        'maintenance',
        'fault',
        'driver',
        'name',
        'id',
        'status',
        'min_version',
        'version',
        'protected',
        'retired',
        'state',
        'alive',
        'resource_class',
        'console_enabled',
        'type',
        'rel',
        'href',
        'next',
        'mode',
        'address',
        'traits',
        'hosts',
    }
)

#: Keys whose value only counts as "null or not" (error presence).
PRESENCE_KEYS = frozenset(
    {
        'last_error',
        'maintenance_reason',
        'reservation',
        'clean_step',
        'deploy_step',
        'service_step',
        'allocation_uuid',
        'instance_uuid',
        'chassis_uuid',
        'portgroup_uuid',
        'conductor',
        'inspection_started_at',
        'inspection_finished_at',
        'provision_updated_at',
        'updated_at',
        'fault_reason',
        'protected_reason',
        'retired_reason',
    }
)

#: Free-form objects whose inner keys belong to each implementation
#: (only their presence is compared).
OPAQUE_KEYS = frozenset({'driver_internal_info'})

#: Response headers whose presence is compared (names in lower case).
HEADERS = (
    'location',
    'allow',
    'x-openstack-ironic-api-version',
    'x-openstack-ironic-api-minimum-version',
    'x-openstack-ironic-api-maximum-version',
    'x-openstack-request-id',
)

_UUID = re.compile(
    r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
)
_HOST = re.compile(r'^https?://[^/]+')
_TIMESTAMP = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d')


def normalize_value(value: Any) -> Any:
    """A value as compared: ids, hosts and timestamps made neutral."""
    if isinstance(value, str):
        if _TIMESTAMP.match(value):
            return '<timestamp>'
        value = _HOST.sub('<host>', value)
        return _UUID.sub('<uuid>', value)
    if isinstance(value, list):
        return [normalize_value(item) for item in value]
    if isinstance(value, dict):
        return {key: normalize_value(item) for key, item in value.items()}
    return value


def decode_body(raw: bytes, content_type: str | None) -> Any:
    """The JSON body (with an Ironic ``error_message`` string parsed),
    or a marker for an empty or non-JSON body."""
    if not raw.strip():
        return '<empty>'
    try:
        body = json.loads(raw)
    except ValueError:
        return f'<non-json {(content_type or "").split(";")[0]}>'
    if isinstance(body, dict) and isinstance(body.get('error_message'), str):
        try:
            body = dict(body, error_message=json.loads(body['error_message']))
        except ValueError:
            pass
    return body


def error_text(body: Any) -> str | None:
    """The message of an Ironic error body, if it is one."""
    if not isinstance(body, dict) or 'error_message' not in body:
        return None
    inner = body['error_message']
    if isinstance(inner, dict):
        text = (
            inner.get('faultstring')
            or inner.get('description')
            or inner.get('title')
        )
        return None if text is None else str(text)
    return str(inner)


@dataclasses.dataclass
class Shape:
    """What is compared of one response."""

    status: int
    paths: set[str] = dataclasses.field(default_factory=set)
    values: dict[str, Any] = dataclasses.field(default_factory=dict)
    body_kind: str = 'json'
    #: The error text of an error answer (for the report, not compared).
    message: str | None = None


def _walk(body: Any, prefix: str, shape: Shape) -> None:
    if isinstance(body, dict):
        for key, item in body.items():
            path = f'{prefix}.{key}' if prefix else key
            shape.paths.add(path)
            _leaf(key, item, path, shape)
    elif isinstance(body, list):
        for item in body:
            _walk(item, f'{prefix}[]', shape)
        if prefix:
            _record(shape, f'{prefix}#len', len(body))


def _record(shape: Shape, path: str, value: Any) -> None:
    """Values of list elements are collected in order under one path."""
    if '[]' in path:
        shape.values.setdefault(path, []).append(value)
    else:
        shape.values[path] = value


def _leaf(key: str, item: Any, path: str, shape: Shape) -> None:
    if key in OPAQUE_KEYS:
        return
    if key in PRESENCE_KEYS:
        _record(shape, path, 'null' if item is None else 'set')
        return
    if key in VALUE_KEYS and not isinstance(item, dict):
        _record(shape, path, normalize_value(item))
        if not isinstance(item, list) or not any(
            isinstance(x, dict) for x in item
        ):
            return
    _walk(item, path, shape)


def shape_of(
    status: int,
    body: Any,
    headers: dict[str, str] | None = None,
    header_values: Iterable[str] = (),
) -> Shape:
    """The :class:`Shape` of a decoded body (see :func:`decode_body`).

    ``header_values`` are headers whose value is compared too; the
    others in :data:`HEADERS` only by presence.
    """
    shape = Shape(status=status, message=error_text(body))
    if isinstance(body, str) and body.startswith('<'):
        shape.body_kind = body
    else:
        _walk(body, '', shape)
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    wanted = {h.lower() for h in header_values}
    for name in HEADERS:
        if name in lowered:
            shape.paths.add(f'header:{name}')
            if name in wanted:
                shape.values[f'header:{name}'] = normalize_value(lowered[name])
    return shape


@dataclasses.dataclass
class Difference:
    """How two shapes differ; empty (falsy) when they match."""

    status: tuple[int, int] | None = None
    body_kind: tuple[str, str] | None = None
    only_upstream: list[str] = dataclasses.field(default_factory=list)
    only_lite: list[str] = dataclasses.field(default_factory=list)
    values: dict[str, tuple[Any, Any]] = dataclasses.field(
        default_factory=dict
    )

    def __bool__(self) -> bool:
        return bool(
            self.status
            or self.body_kind
            or self.only_upstream
            or self.only_lite
            or self.values
        )

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def compare(upstream: Shape, lite: Shape) -> Difference:
    """Status, body kind, key paths and the compared values.

    Key paths and values are only compared when both sides answered
    with the same status: a 404 against a 200 says it all.
    """
    diff = Difference()
    if upstream.status != lite.status:
        diff.status = (upstream.status, lite.status)
    if upstream.body_kind != lite.body_kind:
        diff.body_kind = (upstream.body_kind, lite.body_kind)
    diff.only_upstream = sorted(upstream.paths - lite.paths)
    diff.only_lite = sorted(lite.paths - upstream.paths)
    if diff.status is None:
        diff.values = _value_differences(upstream.values, lite.values)
    return diff


def _value_differences(
    upstream: dict[str, Any], lite: dict[str, Any]
) -> dict[str, tuple[Any, Any]]:
    """Differing values; inside a list whose length differs only the
    length is reported (its elements no longer pair up)."""
    out: dict[str, tuple[Any, Any]] = {}
    uneven: list[str] = []
    for path in sorted(upstream.keys() & lite.keys()):
        if upstream[path] == lite[path]:
            continue
        if any(path.startswith(prefix) for prefix in uneven):
            continue
        out[path] = (upstream[path], lite[path])
        if path.endswith('#len'):
            uneven.append(path[: -len('#len')] + '[]')
    return out
