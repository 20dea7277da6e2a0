"""Node states: show, power, provision, maintenance.

The API checks what it can without the conductor (the body, the
microversion of the target, and whether the provision state machine
has the transition, as upstream does), then asks the conductor owning
the node, which takes the node lock and answers 202-worthy or raises
(NodeLocked 409, NoFreeConductorWorker 503, invalid state 400).
"""

import string
from typing import Any

import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.schemas import node_states as schemas
from ironic_lite.api.views import nodes as views
from ironic_lite.common import states
from ironic_lite.conductor import steps as conductor_steps

#: Provision targets and the version that introduced each (upstream's).
PROVISION_TARGET_VERSIONS = {
    'active': '1.1', 'deleted': '1.1', 'manage': '1.4', 'provide': '1.4',
    'inspect': '1.6', 'adopt': '1.17',
    'abort': '1.13', 'clean': '1.15', 'deploy': '1.73',
    'undeploy': '1.73', 'unhold': '1.85',
}


def _accepted(req: webob.Request, row: dict[str, Any]) -> webob.Response:
    response = webob.Response(status=202)
    response.headers['Location'] = (
        f'{util.base_url(req)}/v1/nodes/{row["uuid"]}/states')
    return response


@util.translate_errors
def show_states(req: webob.Request) -> webob.Response:
    row = node_access.authorized_node(req, 'baremetal:node:get_states')
    return util.json_response(views.states(row, util.version(req)))


@util.translate_errors
def set_power_state(req: webob.Request) -> webob.Response:
    body = util.read_body(req, schemas.POWER)
    for name, used in (('timeout', 'timeout' in body),
                       (body['target'],
                        body['target'] in states.SOFT_POWER_TARGETS)):
        if used and util.version(req).below(mv.POWER_TIMEOUT):
            raise webob.exc.HTTPNotAcceptable(
                explanation=f'The power state "{name}" needs API version '
                f'{mv.POWER_TIMEOUT} or later; this request uses '
                f'{util.version(req)}.')
    row = node_access.authorized_node(req, 'baremetal:node:set_power_state')
    if body['target'] in (states.POWER_OFF, states.SOFT_POWER_OFF) and \
            row.get('disable_power_off'):
        # 1.95: such a node is never powered off (upstream's answer).
        raise webob.exc.HTTPConflict(
            explanation='Failed to set node power state to '
            f'{body["target"]}.')
    util.deps(req).conductor.change_power_state(
        util.context(req), row, body['target'])
    return _accepted(req, row)


def _check_target(req: webob.Request, body: dict[str, Any]) -> str:
    """The machine event of ``target``; 400/406 for a bad request."""
    target = body['target']
    since = PROVISION_TARGET_VERSIONS.get(target)
    if since is None or target not in states.ALLOWED_PROVISION_VERBS:
        raise webob.exc.HTTPBadRequest(
            explanation=f'The requested action "{target}" could not be '
            'understood; valid targets: '
            f'{", ".join(sorted(PROVISION_TARGET_VERSIONS))}.')
    if util.version(req).below(since):
        raise webob.exc.HTTPNotAcceptable(
            explanation=f'The provision target "{target}" needs API '
            f'version {since} or later; this request uses '
            f'{util.version(req)}.')
    if target == 'clean' and 'clean_steps' not in body:
        raise webob.exc.HTTPBadRequest(
            explanation='"clean_steps" is required when setting target '
            'provision state to clean')
    if target != 'clean' and 'clean_steps' in body:
        raise webob.exc.HTTPBadRequest(
            explanation='"clean_steps" is only valid when setting target '
            'provision state to clean')
    _check_disable_ramdisk(req, body)
    if 'clean_steps' in body:
        # Kept in driver_internal_info, a TEXT column: a list that
        # cannot be stored is refused now, not when the conductor
        # writes it.
        conductor_steps.check_stored_size(
            conductor_steps.stored_form(body['clean_steps']))
    return states.ALLOWED_PROVISION_VERBS[target]


def _check_disable_ramdisk(req: webob.Request, body: dict[str, Any]) -> None:
    """``disable_ramdisk`` (1.70, with ``clean``): ironic_lite boots no
    ramdisk for cleaning, so only ``false`` (what happens anyway) is
    accepted; ``true`` is a 400 rather than silently ignored."""
    if 'disable_ramdisk' not in body:
        return
    if util.version(req).below(mv.DISABLE_RAMDISK):
        raise webob.exc.HTTPNotAcceptable(
            explanation='"disable_ramdisk" needs API version '
            f'{mv.DISABLE_RAMDISK} or later; this request uses '
            f'{util.version(req)}.')
    if body['target'] != 'clean':
        raise webob.exc.HTTPBadRequest(
            explanation='"disable_ramdisk" is only valid when setting '
            'target provision state to clean')
    if body['disable_ramdisk']:
        raise webob.exc.HTTPBadRequest(
            explanation='"disable_ramdisk": true is not supported: '
            'ironic_lite runs clean steps without booting a ramdisk '
            'on the node, so there is none to disable.')


@util.translate_errors
def set_provision_state(req: webob.Request) -> webob.Response:
    body = util.read_body(req, schemas.PROVISION)
    event = _check_target(req, body)
    rules = ['baremetal:node:set_provision_state']
    if 'clean_steps' in body:
        rules.append('baremetal:node:set_provision_state:clean_steps')
    row = node_access.authorized_node(req, *rules)
    # InvalidStateRequested (400) when the machine has no such
    # transition from the node's state, before bothering a conductor.
    states.next_state(row['provision_state'], event, row['uuid'])
    util.deps(req).conductor.do_provisioning_action(
        util.context(req), row, body['target'],
        clean_steps=body.get('clean_steps'),
        configdrive=_configdrive(req, body))
    return _accepted(req, row)


#: Characters of base64 text (with the whitespace it often holds).
_B64 = frozenset(string.ascii_letters + string.digits + '+/=\n\r\t ')


def _configdrive(req: webob.Request, body: dict[str, Any]) -> str | None:
    """The config drive of a deployment, checked as upstream checks it:
    with the active (deploy) target only; a URL or base64 text; a JSON
    object to build one from is 1.56 (not served)."""
    value = body.get('configdrive')
    if not value:
        return None
    if body['target'] not in ('active', 'deploy'):
        raise webob.exc.HTTPBadRequest(
            explanation='Adding a config drive is only supported when '
            'setting provision state to active')
    if isinstance(value, dict):
        raise webob.exc.HTTPBadRequest(
            explanation='Providing a JSON object for configdrive (to '
            'build one from) is not supported by ironic_lite (upstream\'s '
            '1.56); send a gzipped, base64 encoded ISO image or a URL')
    if '://' not in value and set(value) - _B64:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid configdrive format: it is neither a JSON, '
            'nor a URL, nor a base64 string')
    return str(value)


@util.translate_errors
def set_raid_config(req: webob.Request) -> webob.Response:
    """``PUT .../states/raid`` (1.12): the target RAID configuration;
    a node without a RAID interface takes only ``{}`` (404 otherwise,
    as upstream answers for its ``no-raid`` interface)."""
    row = node_access.authorized_node(req, 'baremetal:node:set_raid_state')
    if util.version(req).below(mv.PARTIAL['raid_config']):
        raise webob.exc.HTTPNotAcceptable(
            explanation='PUT .../states/raid needs API version '
            f"{mv.PARTIAL['raid_config']} or later; this request uses "
            f'{util.version(req)}.')
    body = util.read_body(req, schemas.RAID)
    try:
        util.deps(req).conductor.set_target_raid_config(
            util.context(req), row, body)
    except exception.UnsupportedDriverExtension as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return webob.Response(status=204)


@util.translate_errors
def set_maintenance(req: webob.Request) -> webob.Response:
    body = util.read_body(req, schemas.MAINTENANCE, optional=True)
    row = node_access.authorized_node(req, 'baremetal:node:set_maintenance')
    util.deps(req).conductor.update_node(
        util.context(req), row,
        {'maintenance': True, 'maintenance_reason': body.get('reason')})
    return _accepted(req, row)


@util.translate_errors
def clear_maintenance(req: webob.Request) -> webob.Response:
    row = node_access.authorized_node(req,
                                      'baremetal:node:clear_maintenance')
    util.deps(req).conductor.update_node(
        util.context(req), row,
        {'maintenance': False, 'maintenance_reason': None, 'fault': None})
    return _accepted(req, row)
