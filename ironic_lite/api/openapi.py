"""The OpenAPI document of the Bare Metal API, from the route table and
the request schemas (``python -m ironic_lite.api.openapi`` prints it;
it is served at ``/openapi.json`` and checked into
``doc/source/api/openapi/baremetal.json``). Request bodies are those of
the newest microversion; every operation carries the microversion header
of its range (from the route table), and the described ones their query
parameters and success answers (:mod:`ironic_lite.api.described`).
"""

from collections.abc import Iterable
import json
from typing import Any

from ironic_lite.api import described
from ironic_lite.api import microversion
from ironic_lite.api.handlers import allocations
from ironic_lite.api.handlers import boot_device
from ironic_lite.api.handlers import chassis
from ironic_lite.api.handlers import console
from ironic_lite.api.handlers import continue_inspection
from ironic_lite.api.handlers import deploy_templates
from ironic_lite.api.handlers import events
from ironic_lite.api.handlers import indicators
from ironic_lite.api.handlers import inspection_rules
from ironic_lite.api.handlers import node_states
from ironic_lite.api.handlers import node_traits
from ironic_lite.api.handlers import nodes
from ironic_lite.api.handlers import portgroups
from ironic_lite.api.handlers import ports
from ironic_lite.api.handlers import ramdisk
from ironic_lite.api.handlers import runbook_traits
from ironic_lite.api.handlers import runbooks
from ironic_lite.api.handlers import vendor_passthru
from ironic_lite.api.handlers import vifs
from ironic_lite.api.handlers import vmedia
from ironic_lite.api.handlers import volume
from ironic_lite.api.schemas import events as event_schemas
from ironic_lite.api.schemas import node_states as state_schemas
from ironic_lite.api.schemas import nodes as node_schemas
from ironic_lite.api.schemas import portgroups as portgroup_schemas
from ironic_lite.api.schemas import ports as port_schemas
from ironic_lite.api.schemas import volume as volume_schemas
from ironic_lite.inspection_rules import validation
from lite_common.wsgi import openapi

PATH = '/openapi.json'
#: The microversion header the document describes (upstream's other
#: spelling, ``OpenStack-API-Version: baremetal X.Y``, works as well).
MICROVERSION = openapi.MicroversionHeader(
    microversion.LEGACY_HEADER,
    '',
    microversion.MIN_VERSION,
    microversion.MAX_VERSION,
)

#: ``error_message`` holds a JSON document with ``faultstring``.
ERROR_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {'error_message': {'type': 'string'}},
    'required': ['error_message'],
}


def _narrowed(
    schema: dict[str, Any], name: str, pattern: str
) -> dict[str, Any]:
    """``schema`` whose string property ``name`` must match ``pattern``:
    what the handler checks after the schema (the document's copy only,
    so that the error messages stay the handler's)."""
    properties = dict(schema['properties'])
    properties[name] = {**properties[name], 'pattern': pattern}
    return {**schema, 'properties': properties}


#: vmedia.URL_SCHEMES, as the handler checks them.
_IMAGE_URL = f'^({"|".join(vmedia.URL_SCHEMES)})://'
#: An agent's callback URL: http(s), or empty (one-way heartbeats).
_CALLBACK_URL = r'^(https?://[^\s]+)?$'


def _patch_of(fields: Iterable[str]) -> dict[str, Any]:
    """A JSON patch of ``fields`` (and their members): what the
    handler's check_allowed lets through."""
    names = '|'.join(sorted(fields))
    item = node_schemas.PATCH['items']
    path = {'type': 'string', 'pattern': f'^/({names})(/.*)?$'}
    return {
        **node_schemas.PATCH,
        'items': {
            **item,
            'properties': {**item['properties'], 'path': path, 'from': path},
        },
    }


def bodies() -> openapi.Bodies:
    return {
        nodes.create_node: node_schemas.CREATE,
        nodes.update_node: _patch_of(node_schemas.WRITABLE),
        node_states.set_power_state: state_schemas.POWER,
        node_states.set_provision_state: state_schemas.PROVISION,
        node_states.set_maintenance: state_schemas.MAINTENANCE,
        volume.create_connector: volume_schemas.CONNECTOR_CREATE,
        volume.create_target: volume_schemas.TARGET_CREATE,
        volume.update_connector: volume_schemas.PATCH,
        volume.update_target: volume_schemas.PATCH,
        # Under a node: upstream's 400 (malformed), whatever the body.
        volume.node_connector_create: volume_schemas.CONNECTOR_CREATE,
        volume.node_target_create: volume_schemas.TARGET_CREATE,
        volume.node_connector: volume_schemas.PATCH,
        volume.node_target: volume_schemas.PATCH,
        events.post_events: event_schemas.CREATE,
        indicators.set_indicator: indicators.PUT_BODY,
        node_states.set_raid_config: state_schemas.RAID,
        node_traits.set_traits: node_traits.BODY_SCHEMA,
        chassis.create_chassis: chassis.CREATE_SCHEMA,
        chassis.update_chassis: _patch_of(chassis.PATCHABLE),
        boot_device.set_boot_device: boot_device.PUT_BODY,
        console.set_console: console.PUT_BODY,
        vifs.attach_vif: vifs.BODY,
        deploy_templates.create_template: deploy_templates.TEMPLATE,
        deploy_templates.update_template: _patch_of(
            deploy_templates.PATCHABLE
        ),
        runbooks.create_runbook: runbooks.RUNBOOK,
        inspection_rules.create_rule: validation.RULE_SCHEMA,
        inspection_rules.update_rule: _patch_of(inspection_rules.PATCHABLE),
        runbooks.update_runbook: _patch_of(runbooks.PATCHABLE_1112),
        runbook_traits.set_traits: node_traits.BODY_SCHEMA,
        node_states.set_boot_mode: node_states.TARGET_BODY,
        node_states.set_secure_boot: node_states.TARGET_BODY,
        allocations.create_allocation: allocations.CREATE,
        allocations.update_allocation: _patch_of(allocations.PATCHABLE),
        ramdisk.heartbeat: _narrowed(
            ramdisk.HEARTBEAT, 'callback_url', _CALLBACK_URL
        ),
        continue_inspection.continue_inspection: continue_inspection.BODY,
        vendor_passthru.node_vendor_passthru: vendor_passthru.BODY,
        vendor_passthru.driver_vendor_passthru: vendor_passthru.BODY,
        boot_device.inject_nmi: boot_device.NMI_BODY,
        vmedia.attach_vmedia: _narrowed(
            vmedia.ATTACH, 'image_url', _IMAGE_URL
        ),
        ports.create_port: port_schemas.CREATE,
        ports.update_port: port_schemas.PATCH,
        # Under a node: upstream's 400 (malformed), whatever the body.
        ports.node_port: port_schemas.CREATE,
        ports.portgroup_port: port_schemas.CREATE,
        portgroups.create_portgroup: portgroup_schemas.CREATE,
        portgroups.update_portgroup: portgroup_schemas.PATCH,
        portgroups.node_portgroup: portgroup_schemas.CREATE,
    }


def document() -> dict[str, Any]:
    from ironic_lite.api import routes

    return openapi.document(
        'ironic_lite Bare Metal API',
        microversion.MAX_VERSION,
        routes.ROUTES,
        bodies(),
        ERROR_SCHEMA,
        descriptions=described.descriptions(),
        microversion=MICROVERSION,
    )


def error_format_ok(body: Any) -> bool:
    """Whether ``body`` is an error in this API's format."""
    if not isinstance(body, dict) or set(body) != {'error_message'}:
        return False
    try:
        inner = json.loads(body['error_message'])
    except (TypeError, ValueError):
        return False
    return (
        isinstance(inner, dict)
        and isinstance(inner.get('faultstring'), str)
        and inner.get('faultcode') in ('Client', 'Server')
    )


if __name__ == '__main__':
    print(openapi.dumps(document()), end='')
