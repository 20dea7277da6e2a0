"""POST /servers/{server_id}/action: evacuate (the moves are in
move_actions).

An evacuation is refused unless the server's compute service is down
(heartbeats stopped, or forced down); it is recorded as a migration of
type ``evacuation`` (status ``accepted``) before the conductor is asked to
move the server, so that the source, when it comes back, knows exactly
which local copies to destroy.
"""

import secrets
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob
import webob.exc

from nova_lite.api import util
from nova_lite.api.handlers import move_actions
from nova_lite.api.handlers import servers
from nova_lite.api.schemas import server_actions as schema
from nova_lite.compute import states
from nova_lite.db import migrations as migration_db
from nova_lite.objects import service as service_obj

CONF = cfg.CONF
LOG = logging.getLogger(__name__)
EVACUABLE = (states.ACTIVE, states.STOPPED, states.ERROR)


def _evacuate_schema(req: webob.Request) -> dict[str, Any]:
    version = util.version(req)
    if version.at_least('2.29'):
        return schema.evacuate_v229
    if version.at_least('2.14'):
        return schema.evacuate_v214
    return schema.evacuate


def _check_target(ctx: Any, inst: dict[str, Any], host: str | None) -> None:
    if host is None:
        return
    if move_actions.compute_service(ctx, host) is None:
        raise webob.exc.HTTPNotFound(
            explanation=f'Compute host {host} not found.')
    if host == inst['host']:
        raise webob.exc.HTTPBadRequest(
            explanation="The target host can't be the same one.")


def _check_source(ctx: Any, inst: dict[str, Any]) -> None:
    if inst['vm_state'] not in EVACUABLE or inst['task_state'] is not None:
        raise webob.exc.HTTPConflict(
            explanation=f"Cannot 'evacuate' instance {inst['uuid']} while "
            f"it is in vm_state {inst['vm_state']} and task_state "
            f"{inst['task_state']}.")
    if not inst['host']:
        raise webob.exc.HTTPConflict(
            explanation=f"Cannot 'evacuate' instance {inst['uuid']}: it "
            f"is on no host.")
    row = move_actions.compute_service(ctx, inst['host'])
    if row is None:
        return          # the source service was deleted: it is gone
    service = service_obj.Service._from_db(None, row)
    if service.is_up(CONF.service_down_time):
        raise webob.exc.HTTPBadRequest(
            explanation=f"Compute service of {inst['host']} is still in "
            f"use.")


def _passwords(req: webob.Request, spec: dict[str, Any]) -> str | None:
    """The admin password answered before 2.14 (None from 2.14 on)."""
    if util.version(req).at_least('2.14'):
        return None
    shared = strutils.bool_from_string(spec['onSharedStorage'], strict=True)
    if shared and spec.get('adminPass'):
        raise webob.exc.HTTPBadRequest(
            explanation="admin password can't be changed on existing disk")
    return spec.get('adminPass') or secrets.token_urlsafe(9)


def _record(ctx: Any, inst: dict[str, Any],
            host: str | None) -> dict[str, Any]:
    """task_state rebuilding (compare-and-swap), then the migration."""
    move_actions.begin_task(ctx, inst, {'task_state': states.REBUILDING},
                            'evacuate')
    flavor_id = (inst.get('flavor') or {}).get('flavorid')
    return migration_db.migration_create(ctx, {
        'uuid': uuidutils.generate_uuid(),
        'instance_uuid': inst['uuid'], 'migration_type': 'evacuation',
        'status': 'accepted', 'source_compute': inst['host'],
        'source_node': inst['node'], 'dest_compute': host,
        'old_flavor_id': flavor_id, 'new_flavor_id': flavor_id,
        'project_id': inst['project_id'], 'user_id': inst['user_id']})


def _evacuate(req: webob.Request, inst: dict[str, Any],
              body: dict[str, Any]) -> webob.Response:
    util.authorize(req, 'os_compute_api:os-evacuate',
                   {'project_id': inst['project_id']})
    util.validate(_evacuate_schema(req), body)
    spec = body['evacuate']
    host, force = spec.get('host'), spec.get('force', False)
    if force and host is None:
        raise webob.exc.HTTPBadRequest(
            explanation='force is only allowed with a target host.')
    password = _passwords(req, spec)
    ctx = util.context(req)
    _check_target(ctx, inst, host)
    _check_source(ctx, inst)
    migration = _record(ctx, inst, host)
    LOG.info('Evacuation %s of instance %s from %s accepted (target %s)',
             migration['uuid'], inst['uuid'], inst['host'],
             host or 'chosen by the scheduler')
    util.deps(req).conductor.evacuate_instance(
        ctx, inst['uuid'], migration['id'], host, force)
    if password is None:
        return webob.Response(status=200)
    return util.json_response({'adminPass': password})


ACTIONS = {'evacuate': _evacuate, **move_actions.ACTIONS}


@util.translate_errors
def server_action(req: webob.Request) -> webob.Response:
    body = util.read_json(req)
    if not isinstance(body, dict) or len(body) != 1:
        raise webob.exc.HTTPBadRequest(
            explanation='The body must be an object with one action.')
    name = next(iter(body))
    action = ACTIONS.get(name)
    if action is None:
        raise webob.exc.HTTPBadRequest(
            explanation=f'There is no such action: {name}')
    return action(req, servers.get_server(req), body)
