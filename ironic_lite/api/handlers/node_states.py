"""Node states: show, power, provision, maintenance.

The API checks what it can without the conductor (the body, the
microversion of the target, and whether the provision state machine
has the transition, as upstream does), then asks the conductor owning
the node, which takes the node lock and answers 202-worthy or raises
(NodeLocked 409, NoFreeConductorWorker 503, invalid state 400).
"""

import string
from typing import Any

import jsonschema
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.handlers import runbooks
from ironic_lite.api.schemas import node_states as schemas
from ironic_lite.api.views import nodes as views
from ironic_lite.common import hardware_settings
from ironic_lite.common import states
from ironic_lite.common import step_requests
from lite_common.wsgi import handling

#: Provision targets and the version that introduced each (upstream's).
PROVISION_TARGET_VERSIONS = {
    'active': '1.1',
    'deleted': '1.1',
    'rebuild': '1.1',
    'manage': '1.4',
    'provide': '1.4',
    'inspect': '1.6',
    'adopt': '1.17',
    'abort': '1.13',
    'clean': '1.15',
    'deploy': '1.73',
    'undeploy': '1.73',
    'unhold': '1.85',
    'rescue': '1.38',
    'unrescue': '1.38',
    'service': '1.87',
}


def _accepted(req: webob.Request, row: dict[str, Any]) -> webob.Response:
    response = webob.Response(status=202)
    response.headers['Location'] = (
        f'{util.base_url(req)}/v1/nodes/{row["uuid"]}/states'
    )
    return response


def show_states(req: webob.Request) -> webob.Response:
    row = node_access.authorized_node(req, 'baremetal:node:get_states')
    return util.json_response(views.states(row, util.version(req)))


def set_power_state(req: webob.Request) -> webob.Response:
    body = util.read_body(req, schemas.POWER)
    for name, used in (
        ('timeout', 'timeout' in body),
        (body['target'], body['target'] in states.SOFT_POWER_TARGETS),
    ):
        if used and util.version(req).below(mv.POWER_TIMEOUT):
            raise webob.exc.HTTPNotAcceptable(
                explanation=f'The power state "{name}" needs API version '
                f'{mv.POWER_TIMEOUT} or later; this request uses '
                f'{util.version(req)}.'
            )
    row = node_access.authorized_node(req, 'baremetal:node:set_power_state')
    if body['target'] in (states.POWER_OFF, states.SOFT_POWER_OFF) and row.get(
        'disable_power_off'
    ):
        # 1.95: such a node is never powered off (upstream's answer).
        raise webob.exc.HTTPConflict(
            explanation=f'Failed to set node power state to {body["target"]}.'
        )
    util.deps(req).conductor.change_power_state(
        util.context(req), row, body['target']
    )
    return _accepted(req, row)


def _check_target(req: webob.Request, body: dict[str, Any]) -> str:
    """The machine event of ``target``; 400/406 for a bad request."""
    target = body['target']
    since = PROVISION_TARGET_VERSIONS.get(target)
    if since is None or target not in states.ALLOWED_PROVISION_VERBS:
        raise webob.exc.HTTPBadRequest(
            explanation=f'The requested action "{target}" could not be '
            'understood; valid targets: '
            f'{", ".join(sorted(PROVISION_TARGET_VERSIONS))}.'
        )
    if target != 'service':
        # service: after the state, as upstream (_check_service).
        _check_version(req, target, since)
    if (
        target == 'clean'
        and 'clean_steps' not in body
        and body.get('runbook') is None
    ):
        raise webob.exc.HTTPBadRequest(
            explanation='"clean_steps" is required when setting target '
            'provision state to clean'
        )
    if target != 'clean' and 'clean_steps' in body:
        raise webob.exc.HTTPBadRequest(
            explanation='"clean_steps" is only valid when setting target '
            'provision state to clean'
        )
    _check_service_steps(body)
    _check_disable_ramdisk(req, body)
    if body.get('deploy_steps'):
        if util.version(req).below(mv.DEPLOY_STEPS):
            raise webob.exc.HTTPNotAcceptable(
                explanation='Request not acceptable. The minimal required '
                f'API version should be {mv.DEPLOY_STEPS}'
            )
        if target not in ('active', 'deploy', 'rebuild'):
            raise webob.exc.HTTPBadRequest(
                explanation='"deploy_steps" is only valid when setting '
                'target provision state to active or rebuild'
            )
    if 'clean_steps' in body:
        # Kept in driver_internal_info, a TEXT column: a list that
        # cannot be stored is refused now, not when the conductor
        # writes it.
        step_requests.check_stored_size(
            step_requests.stored_form(body['clean_steps'])
        )
    return states.ALLOWED_PROVISION_VERBS[target]


def _with_runbook(
    req: webob.Request, row: dict[str, Any], body: dict[str, Any]
) -> dict[str, Any]:
    """``body`` with the steps (and ``disable_ramdisk``) of the runbook
    it names (1.92) in place of the runbook."""
    steps, disable_ramdisk = runbooks.steps_for(req, row, body)
    body = {**body, f'{body["target"]}_steps': steps}
    del body['runbook']
    if disable_ramdisk:
        body['disable_ramdisk'] = True
    return body


def _check_version(req: webob.Request, target: str, since: str) -> None:
    if util.version(req).below(since):
        raise webob.exc.HTTPNotAcceptable(
            explanation=f'The provision target "{target}" needs API '
            f'version {since} or later; this request uses '
            f'{util.version(req)}.'
        )


def _check_service_steps(body: dict[str, Any]) -> None:
    """``service_steps`` only with ``service`` (upstream's message)."""
    if body['target'] != 'service' and body.get('service_steps'):
        raise webob.exc.HTTPBadRequest(
            explanation='"service_steps" is only valid when setting target '
            'provision state to service'
        )


def _check_service(req: webob.Request, body: dict[str, Any]) -> None:
    """The service target once the node's state allows it, in
    upstream's order: the version (406), then ``service_steps``
    (required, 400) and their schema (400)."""
    _check_version(req, 'service', PROVISION_TARGET_VERSIONS['service'])
    if not body.get('service_steps'):
        raise webob.exc.HTTPBadRequest(
            explanation='"service_steps" is required when setting target '
            'provision state to service'
        )
    handling.validate(
        {
            'type': 'object',
            'properties': {'service_steps': schemas.SERVICE_STEPS},
        },
        {'service_steps': body['service_steps']},
    )
    step_requests.check_stored_size(
        step_requests.stored_form(body['service_steps'])
    )


#: The targets ``disable_ramdisk`` goes with, and from which version.
DISABLE_RAMDISK_VERSIONS = {
    'clean': mv.DISABLE_RAMDISK,
    'service': mv.SERVICE_DISABLE_RAMDISK,
}


def _check_disable_ramdisk(req: webob.Request, body: dict[str, Any]) -> None:
    """``disable_ramdisk`` (1.70 with ``clean``, 1.108 with
    ``service``): ironic_lite boots no ramdisk for either (their steps
    run out of band), so ``true`` is what happens anyway; ``false`` asks
    for nothing more."""
    if body.get('disable_ramdisk') is None:
        return
    since = DISABLE_RAMDISK_VERSIONS.get(body['target'])
    if since is None:
        raise webob.exc.HTTPBadRequest(
            explanation='disable_ramdisk is supported only with manual '
            'cleaning or servicing'
        )
    if util.version(req).below(since):
        raise webob.exc.HTTPNotAcceptable(
            explanation='disable_ramdisk is not acceptable in this API version'
        )


def set_provision_state(req: webob.Request) -> webob.Response:
    body = util.read_body(req, schemas.PROVISION)
    event = _check_target(req, body)
    rules = ['baremetal:node:set_provision_state']
    if 'clean_steps' in body:
        rules.append('baremetal:node:set_provision_state:clean_steps')
    if body.get('service_steps'):
        rules.append('baremetal:node:set_provision_state:service_steps')
    row = node_access.authorized_node(req, *rules)
    if (
        event == 'abort'
        and row['provision_state'] == states.INSPECTWAIT
        and util.version(req).below(mv.INSPECT_ABORT)
    ):
        raise webob.exc.HTTPNotAcceptable(
            explanation='Aborting an inspection needs API version '
            f'{mv.INSPECT_ABORT} or later; this request uses '
            f'{util.version(req)}.'
        )
    if (
        event == 'abort'
        and row['provision_state'] == states.DEPLOYWAIT
        and util.version(req).below(mv.DEPLOY_ABORT)
    ):
        raise webob.exc.HTTPNotAcceptable(
            explanation='Aborting a deployment needs API version '
            f'{mv.DEPLOY_ABORT} or later; this request uses '
            f'{util.version(req)}.'
        )
    # InvalidStateRequested (400) when the machine has no such
    # transition from the node's state, before bothering a conductor.
    states.next_state(row['provision_state'], event, row['uuid'])
    if body.get('runbook') is not None:
        body = _with_runbook(req, row, body)
    if body['target'] == 'service':
        _check_service(req, body)
    util.deps(req).conductor.do_provisioning_action(
        util.context(req),
        row,
        body['target'],
        clean_steps=body.get('clean_steps'),
        configdrive=_configdrive(req, body),
        rescue_password=_rescue_password(body),
        deploy_steps=body.get('deploy_steps') or None,
        service_steps=body.get('service_steps') or None,
        disable_ramdisk=(
            body.get('disable_ramdisk')
            if body['target'] == 'service'
            else None
        ),
    )
    return _accepted(req, row)


def _rescue_password(body: dict[str, Any]) -> str | None:
    """The password of a rescue (1.38): required with the rescue
    target, refused with any other (upstream's messages)."""
    password = body.get('rescue_password')
    if body['target'] == 'rescue':
        if not password:
            raise webob.exc.HTTPBadRequest(
                explanation='A non-empty "rescue_password" is required '
                'when setting target provision state to rescue'
            )
        return str(password)
    if 'rescue_password' in body:
        raise webob.exc.HTTPBadRequest(
            explanation='"rescue_password" is only valid when setting '
            'target provision state to rescue'
        )
    return None


#: Characters of base64 text (with the whitespace it often holds).
_B64 = frozenset(string.ascii_letters + string.digits + '+/=\n\r\t ')


#: A config drive to build (1.56; vendor_data 1.59), upstream's schema.
CONFIG_DRIVE_JSON = {
    'type': 'object',
    'properties': {
        'meta_data': {'type': 'object'},
        'network_data': {'type': 'object'},
        'user_data': {'type': ['object', 'array', 'string', 'null']},
        'vendor_data': {'type': 'object'},
    },
    'additionalProperties': False,
}


def _configdrive_json(
    req: webob.Request, value: dict[str, Any]
) -> dict[str, Any]:
    """A config drive to build from its documents, as upstream checks
    it: 1.56, vendor_data 1.59, only the four documents."""
    errors = sorted(
        jsonschema.Draft4Validator(CONFIG_DRIVE_JSON).iter_errors(value),
        key=lambda e: list(e.path),
    )
    if errors:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid configdrive format: {errors[0].message}'
        )
    version = util.version(req)
    if version.below(mv.BUILD_CONFIGDRIVE):
        raise webob.exc.HTTPBadRequest(
            explanation='Providing a JSON object for configdrive is only '
            f'supported starting with API version {mv.BUILD_CONFIGDRIVE}'
        )
    if 'vendor_data' in value and version.below(mv.CONFIGDRIVE_VENDOR_DATA):
        raise webob.exc.HTTPBadRequest(
            explanation='Providing vendor_data in configdrive is only '
            'supported starting with API version '
            f'{mv.CONFIGDRIVE_VENDOR_DATA}'
        )
    return value


def _configdrive(
    req: webob.Request, body: dict[str, Any]
) -> str | dict[str, Any] | None:
    """The config drive of a deployment, checked as upstream checks it:
    with the active (deploy) target, and rebuild from 1.35; a URL or
    base64 text, or from 1.56 the JSON documents to build one from
    (kept as they are: the deploy interface that writes the disk builds
    the image)."""
    value = body.get('configdrive')
    if not value:
        return None
    allowed = ['active']
    if util.version(req).at_least(mv.REBUILD_CONFIGDRIVE):
        allowed.append('rebuild')
    if body['target'] not in (*allowed, 'deploy'):
        raise webob.exc.HTTPBadRequest(
            explanation='Adding a config drive is only supported when '
            f'setting provision state to {", ".join(allowed)}'
        )
    if isinstance(value, dict):
        return _configdrive_json(req, value)
    if '://' not in value and set(value) - _B64:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid configdrive format: it is neither a JSON, '
            'nor a URL, nor a base64 string'
        )
    return str(value)


def set_raid_config(req: webob.Request) -> webob.Response:
    """``PUT .../states/raid`` (1.12): the target RAID configuration;
    a node without a RAID interface takes only ``{}`` (404 otherwise,
    as upstream answers for its ``no-raid`` interface)."""
    row = node_access.authorized_node(req, 'baremetal:node:set_raid_state')
    if util.version(req).below(mv.RAID):
        raise webob.exc.HTTPNotAcceptable(
            explanation='PUT .../states/raid needs API version '
            f'{mv.RAID} or later; this request uses '
            f'{util.version(req)}.'
        )
    body = util.read_body(req, schemas.RAID)
    try:
        util.deps(req).conductor.set_target_raid_config(
            util.context(req), row, body
        )
    except exception.UnsupportedDriverExtension as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return webob.Response(status=204)


def set_maintenance(req: webob.Request) -> webob.Response:
    body = util.read_body(req, schemas.MAINTENANCE, optional=True)
    row = node_access.authorized_node(req, 'baremetal:node:set_maintenance')
    util.deps(req).conductor.update_node(
        util.context(req),
        row,
        {'maintenance': True, 'maintenance_reason': body.get('reason')},
    )
    # 202 without a Location, as upstream's maintenance calls.
    return webob.Response(status=202)


def clear_maintenance(req: webob.Request) -> webob.Response:
    row = node_access.authorized_node(req, 'baremetal:node:clear_maintenance')
    util.deps(req).conductor.update_node(
        util.context(req),
        row,
        {'maintenance': False, 'maintenance_reason': None, 'fault': None},
    )
    # 202 without a Location, as upstream's maintenance calls.
    return webob.Response(status=202)


TARGET_BODY: dict[str, Any] = {
    'type': 'object',
    'properties': {'target': {}},
    'required': ['target'],
    'additionalProperties': False,
}
_BOOL_TEXT = {
    'true': True,
    '1': True,
    'yes': True,
    'on': True,
    't': True,
    'y': True,
    'false': False,
    '0': False,
    'no': False,
    'off': False,
    'f': False,
    'n': False,
}


def _boot_setting_node(req: webob.Request, action: str) -> dict[str, Any]:
    """The node of a boot mode or secure boot change (1.76): policy,
    then the version (404 below), as upstream."""
    row = node_access.authorized_node(req, action)
    if util.version(req).below(mv.BOOT_MODE_CHANGE):
        raise webob.exc.HTTPNotFound(
            explanation='This endpoint is supported starting with the API '
            f'version {mv.BOOT_MODE_CHANGE}'
        )
    return row


def _check_stable(row: dict[str, Any], target: Any) -> None:
    if row['provision_state'] in states.UNSTABLE_STATES:
        raise webob.exc.HTTPConflict(
            explanation=f'Node is in {row["provision_state"]} state. Since '
            'node is transitioning, the boot mode will not be set as this '
            'may interfere with ongoing changes and result in erroneous '
            'modification. Try again later.'
        )


def set_boot_mode(req: webob.Request) -> webob.Response:
    """``PUT .../states/boot_mode`` (1.76): ``{"target": "uefi"}``."""
    row = _boot_setting_node(req, 'baremetal:node:set_boot_mode')
    target = util.read_body(req, TARGET_BODY)['target']
    if target not in hardware_settings.BOOT_MODES:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid boot mode {target} requested for node. '
            'Allowed boot modes are: '
            f'{", ".join(hardware_settings.BOOT_MODES)}'
        )
    _check_stable(row, target)
    util.deps(req).conductor.change_node_boot_mode(
        util.context(req), row, target
    )
    return _accepted(req, row)


def set_secure_boot(req: webob.Request) -> webob.Response:
    """``PUT .../states/secure_boot`` (1.76): ``{"target": true}``."""
    row = _boot_setting_node(req, 'baremetal:node:set_secure_boot')
    target = util.read_body(req, TARGET_BODY)['target']
    if isinstance(target, str):
        target = _BOOL_TEXT.get(target.strip().lower(), target)
    if not isinstance(target, bool):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid secure_boot {target} requested for node. '
            'Allowed secure_boot states are: True, False) '
        )
    _check_stable(row, target)
    util.deps(req).conductor.change_node_secure_boot(
        util.context(req), row, target
    )
    return _accepted(req, row)
