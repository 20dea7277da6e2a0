"""Server actions that move a server: migrate, resize, confirmResize,
revertResize (POST /servers/{server_id}/action).

``migrate`` and ``resize`` set the task state ``resize_prep`` (a
compare-and-swap, so two operations cannot start at once), keep the old
and new flavors on the instance, record a migration of type
``migration`` (same flavor) or ``resize`` with status ``pre-migrating``
and hand over to the conductor, which chooses a destination. Confirm and
revert move the ``finished`` migration on by compare-and-swap and ask the
source (confirm) or the destination (revert) to finish.
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import uuidutils
import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import server_ops
from nova_lite.api import util
from nova_lite.api.schemas import server_actions as schema
from nova_lite.compute import states
from nova_lite.db import instances as instance_db
from nova_lite.db import migrations as migration_db
from nova_lite.db import services as service_db
from nova_lite.objects import service as service_obj

CONF = cfg.CONF
LOG = logging.getLogger(__name__)
MOVABLE = (states.ACTIVE, states.STOPPED)
COLD_MOVE_TYPES = ['migration', 'resize']


def _check_state(inst: dict[str, Any], action: str,
                 vm_states: tuple[str, ...]) -> None:
    if inst['vm_state'] not in vm_states or inst['task_state'] is not None:
        raise webob.exc.HTTPConflict(
            explanation=f"Cannot '{action}' instance {inst['uuid']} while "
            f"it is in vm_state {inst['vm_state']} and task_state "
            f"{inst['task_state']}.")
    if action in ('migrate', 'resize') and not inst['compute_id']:
        raise webob.exc.HTTPConflict(
            explanation=f"Cannot '{action}' instance {inst['uuid']}: it "
            f"is linked to no compute node (an old record: run "
            f"nova-lite-manage db online_data_migrations).")


def compute_service(ctx: Any, host: str) -> dict[str, Any] | None:
    """The nova-compute service record of ``host``, None without one."""
    try:
        return service_db.service_get(ctx, host=host,
                                      binary=service_obj.COMPUTE_BINARY)
    except exception.ServiceNotFound:
        return None


def _check_host(ctx: Any, inst: dict[str, Any], host: str | None) -> None:
    if host is None:
        return
    if compute_service(ctx, host) is None:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Compute host {host} could not be found.')
    if host == inst['host']:
        raise webob.exc.HTTPBadRequest(
            explanation='Cannot migrate the instance to the host where it '
            'runs.')


def begin_task(ctx: Any, inst: dict[str, Any], values: dict[str, Any],
               action: str) -> None:
    """Write ``values`` (a task state among them) only while the
    instance has no task (compare-and-swap); 409 when another operation
    started first."""
    try:
        instance_db.instance_update(ctx, inst['uuid'], values,
                                    expected_task_state=[None])
    except exception.UnexpectedTaskState:
        raise webob.exc.HTTPConflict(
            explanation=f"Cannot '{action}' instance {inst['uuid']}: "
            f"another operation started.") from None


def _new_flavor(req: webob.Request, inst: dict[str, Any],
                ref: Any) -> dict[str, Any]:
    flavor = server_ops.find_flavor(req, ref)
    current = inst['flavor'] or {}
    if flavor['flavorid'] == current.get('flavorid'):
        raise webob.exc.HTTPBadRequest(
            explanation='When resizing, instances must change flavor!')
    if flavor['root_gb'] < (current.get('root_gb') or 0):
        raise webob.exc.HTTPBadRequest(
            explanation='Resizing to a smaller root disk is not '
            'supported.')
    return server_ops.flavor_snapshot(flavor)


def _start_move(req: webob.Request, inst: dict[str, Any], action: str,
                new_flavor: dict[str, Any],
                host: str | None) -> dict[str, Any]:
    """resize_prep (compare-and-swap), the migration, the conductor."""
    ctx = util.context(req)
    old_flavor = inst['flavor'] or {}
    begin_task(ctx, inst, {'task_state': states.RESIZE_PREP,
                           'old_flavor': old_flavor,
                           'new_flavor': new_flavor}, action)
    same = new_flavor.get('flavorid') == old_flavor.get('flavorid')
    migration = migration_db.migration_create(ctx, {
        'uuid': uuidutils.generate_uuid(),
        'instance_uuid': inst['uuid'],
        'migration_type': 'migration' if same else 'resize',
        'status': 'pre-migrating', 'source_compute': inst['host'],
        'source_node': inst['node'],
        'old_flavor_id': old_flavor.get('flavorid'),
        'new_flavor_id': new_flavor.get('flavorid'),
        'project_id': inst['project_id'], 'user_id': inst['user_id']})
    LOG.info('%s of instance %s from %s accepted (migration %s, target '
             '%s)', migration['migration_type'].capitalize(), inst['uuid'],
             inst['host'], migration['uuid'],
             host or 'chosen by the scheduler')
    util.deps(req).conductor.migrate_server(ctx, inst['uuid'],
                                            migration['id'], host)
    return migration


def migrate(req: webob.Request, inst: dict[str, Any],
            body: dict[str, Any]) -> webob.Response:
    util.authorize(req, 'os_compute_api:os-migrate-server:migrate',
                   {'project_id': inst['project_id']})
    at_256 = util.version(req).at_least('2.56')
    util.validate(schema.migrate_v256 if at_256 else schema.migrate, body)
    host = (body['migrate'] or {}).get('host')
    if host is not None:
        util.authorize(req, 'os_compute_api:os-migrate-server:migrate:host',
                       {'project_id': inst['project_id']})
    _check_state(inst, 'migrate', MOVABLE)
    _check_host(util.context(req), inst, host)
    _start_move(req, inst, 'migrate', inst['flavor'] or {}, host)
    return webob.Response(status=202)


def resize(req: webob.Request, inst: dict[str, Any],
           body: dict[str, Any]) -> webob.Response:
    util.authorize(req, 'os_compute_api:servers:resize',
                   {'project_id': inst['project_id']})
    util.validate(schema.resize, body)
    _check_state(inst, 'resize', MOVABLE)
    new_flavor = _new_flavor(req, inst, body['resize']['flavorRef'])
    _start_move(req, inst, 'resize', new_flavor, None)
    return webob.Response(status=202)


def _last_finished(ctx: Any, inst: dict[str, Any]) -> dict[str, Any] | None:
    """The instance's ``finished`` cold move, None without one."""
    rows = migration_db.migration_get_all(ctx, {
        'instance_uuid': inst['uuid'], 'status': 'finished',
        'migration_types': COLD_MOVE_TYPES}, limit=1)
    return rows[0] if rows else None


def _finished_migration(ctx: Any, inst: dict[str, Any]) -> dict[str, Any]:
    migration = _last_finished(ctx, inst)
    if migration is None:
        raise webob.exc.HTTPBadRequest(
            explanation='Instance has not been resized.')
    return migration


def _take(ctx: Any, inst: dict[str, Any], migration: dict[str, Any],
          status: str, action: str) -> None:
    if not migration_db.migration_transition(ctx, migration['id'],
                                             ('finished',), status):
        raise webob.exc.HTTPConflict(
            explanation=f"Cannot '{action}' instance {inst['uuid']}: "
            f"migration {migration['uuid']} is no longer finished.")


def _take_finished(req: webob.Request, inst: dict[str, Any],
                   body: dict[str, Any], action: str, rule: str,
                   body_schema: dict[str, Any],
                   status: str) -> tuple[Any, dict[str, Any]]:
    """Policy, body and state checks, then the ``finished`` migration
    moved on to ``status`` (compare-and-swap); (context, migration)."""
    util.authorize(req, rule, {'project_id': inst['project_id']})
    util.validate(body_schema, body)
    _check_state(inst, action, (states.RESIZED,))
    ctx = util.context(req)
    migration = _finished_migration(ctx, inst)
    _take(ctx, inst, migration, status, action)
    return ctx, migration


def _cast_confirm(req: webob.Request, ctx: Any, inst: dict[str, Any],
                  migration: dict[str, Any]) -> None:
    """Ask the source to delete the copy it kept."""
    deps = util.deps(req)
    deps.compute.confirm_resize(
        ctx, deps.instance(ctx, inst['uuid']),
        deps.migration(ctx, migration['id']), migration['source_compute'])


def confirm_resize(req: webob.Request, inst: dict[str, Any],
                   body: dict[str, Any]) -> webob.Response:
    ctx, migration = _take_finished(
        req, inst, body, 'confirmResize',
        'os_compute_api:servers:confirm_resize', schema.confirm_resize,
        'confirming')
    LOG.info('Confirming migration %s of instance %s: %s cleans up',
             migration['uuid'], inst['uuid'], migration['source_compute'])
    _cast_confirm(req, ctx, inst, migration)
    return webob.Response(status=204)


def revert_resize(req: webob.Request, inst: dict[str, Any],
                  body: dict[str, Any]) -> webob.Response:
    ctx, migration = _take_finished(
        req, inst, body, 'revertResize',
        'os_compute_api:servers:revert_resize', schema.revert_resize,
        'reverting')
    try:
        begin_task(ctx, inst, {'task_state': states.RESIZE_REVERTING},
                   'revertResize')
    except webob.exc.HTTPConflict:
        migration_db.migration_transition(ctx, migration['id'],
                                          ('reverting',), 'finished')
        raise
    LOG.info('Reverting migration %s of instance %s back to %s',
             migration['uuid'], inst['uuid'], migration['source_compute'])
    deps = util.deps(req)
    deps.compute.revert_resize(
        ctx, deps.instance(ctx, inst['uuid']),
        deps.migration(ctx, migration['id']), inst['host'])
    return webob.Response(status=202)


def confirm_before_delete(req: webob.Request, inst: dict[str, Any]) -> None:
    """A server deleted in VERIFY_RESIZE: confirm its move first, as
    upstream does, so that the source deletes the copy it kept."""
    if inst['vm_state'] != states.RESIZED:
        return
    ctx = util.context(req)
    migration = _last_finished(ctx, inst)
    if migration is None or not migration_db.migration_transition(
            ctx, migration['id'], ('finished',), 'confirming'):
        return
    LOG.info('Confirming migration %s of instance %s before deleting it',
             migration['uuid'], inst['uuid'])
    _cast_confirm(req, ctx, inst, migration)


ACTIONS = {'migrate': migrate, 'resize': resize,
           'confirmResize': confirm_resize, 'revertResize': revert_resize}
