"""The RPC endpoint of ironic-lite-conductor: thin, one method per call.

Every request that changes a node takes the node lock
(:func:`task_manager.acquire`) and validates on the RPC server's thread,
so that a refusal travels back to the API as an ironic_lite exception
with its status: 400 (``Invalid*``, ``InvalidStateRequested``,
``NodeInMaintenance``), 404 ``NodeNotFound``, 409 ``NodeLocked`` /
``InvalidState``, 503 ``NoFreeConductorWorker``. Long work is handed to
the worker pool with :meth:`Task.spawn_after` *before* the node changes
state, so that a full pool refuses with nothing changed; the flows live
in :mod:`cleaning` and :mod:`provisioning`.
"""

import datetime
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from ironic_lite import exception
from ironic_lite.common import interfaces
from ironic_lite.common import states
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.conductor import allocations
from ironic_lite.conductor import clean_state
from ironic_lite.conductor import clean_wait
from ironic_lite.conductor import cleaning
from ironic_lite.conductor import configdrive as configdrive_mod
from ironic_lite.conductor import deploy_steps as deploy_steps_mod
from ironic_lite.conductor import deploy_wait
from ironic_lite.conductor import inspection
from ironic_lite.conductor import node_rules
from ironic_lite.conductor import provisioning
from ironic_lite.conductor import rescue
from ironic_lite.conductor import rpcapi
from ironic_lite.conductor import servicing
from ironic_lite.conductor import steps as conductor_steps
from ironic_lite.conductor import task_manager
from ironic_lite.conductor import workers
from ironic_lite.db import allocations as db_allocations
from ironic_lite.db import nodes as db_nodes
from ironic_lite.db.models import NODE_COLUMNS
from ironic_lite.drivers import base
from ironic_lite.drivers import hardware
from lite_common import rpc
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

#: What a refusal raises; the RPC server logs these at debug level only.
EXPECTED = exception.RPC_EXPECTED

#: Fields only the conductor sets; neither create nor update takes them.
PROTECTED_FIELDS = frozenset(
    {
        'id',
        'uuid',
        'provision_state',
        'target_provision_state',
        'provision_updated_at',
        'reservation',
        'created_at',
        'updated_at',
        'clean_step',
        'conductor_affinity',
        'revision',
    }
)

#: Provision states a node may be deleted in (any state in maintenance).
DELETE_ALLOWED_STATES = (
    states.ENROLL,
    states.MANAGEABLE,
    states.AVAILABLE,
    states.ADOPTFAIL,
)

#: Provision actions refused while the node is in maintenance, as
#: upstream (manage, abort and undeploy stay allowed: they are how an
#: operator recovers a node).
MAINTENANCE_REFUSED_EVENTS = frozenset(
    {'provide', 'clean', 'deploy', 'rebuild', 'rescue', 'unrescue', 'service'}
)

#: Seconds a callback waits for the node lock: a cast has nobody to
#: retry it, and the lock of a node in clean wait is only ever held for
#: a moment (a poll by the periodic task, an update from the API).
CALLBACK_LOCK_PATIENCE = 10.0

DRIVER_FIELDS = frozenset(
    {'driver'} | {f'{kind}_interface' for kind in interfaces.INTERFACE_TYPES}
)


def node_to_dict(row: dict[str, Any]) -> dict[str, Any]:
    """A node row ready for the RPC wire: timestamps (naive UTC in the
    database) become ISO 8601 strings with an explicit UTC offset, as
    the upstream API shows them."""
    result = {}
    for key, value in row.items():
        if isinstance(value, datetime.datetime):
            value = value.replace(tzinfo=datetime.UTC).isoformat()
        result[key] = value
    return result


def _check_fields(values: dict[str, Any], what: str) -> None:
    bad = sorted(set(values) & PROTECTED_FIELDS)
    unknown = sorted(set(values) - NODE_COLUMNS)
    if bad or unknown:
        raise exception.InvalidParameterValue(
            err=f'Cannot {what} the node field(s) '
            f'{", ".join(bad + unknown)}: they are unknown or set by the '
            'conductor only.'
        )


def _check_power_allowed(node: dict[str, Any], target: str) -> None:
    if not states.power_action_allowed(node['provision_state']):
        raise exception.InvalidStateRequested(
            action=target, node=node['uuid'], state=node['provision_state']
        )


def check_driver(conf: cfg.ConfigOpts, node: dict[str, Any]) -> None:
    """Load the node's interfaces and check their clean steps.

    :raises InvalidParameterValue: (subclasses) not loadable.
    :raises DuplicateCleanStepPriority:
    """
    for interface in task_manager.load_driver(conf, node).values():
        conductor_steps.check_duplicate_priorities(interface, conf)


class ConductorManager:
    """The endpoint of topic ``ironic-lite.conductor`` on this host."""

    target = messaging.Target(version=rpcapi.VERSION)

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        identity: ConductorIdentity,
        pool: workers.WorkerPool,
    ) -> None:
        self.conf = conf
        self.identity = identity
        self.host = identity.host
        self.pool = pool
        self.callback_patience = CALLBACK_LOCK_PATIENCE

    def _acquire(
        self,
        context: RequestContext,
        node_id: str,
        purpose: str,
        shared: bool = False,
        patience: float = 0,
    ) -> task_manager.Task:
        return task_manager.acquire(
            context,
            self.conf,
            node_id,
            self.identity,
            purpose,
            shared=shared,
            patience=patience,
        )

    # -- node records

    @rpc.expected_exceptions(*EXPECTED)
    def create_node(
        self,
        context: RequestContext,
        values: dict[str, Any],
        provision_state: str = states.ENROLL,
    ) -> dict[str, Any]:
        """Check the hardware type and interfaces load here, then insert
        the node in ``provision_state``: ``enroll``, or ``available``
        (requests before API 1.11, as upstream)."""
        if provision_state not in (states.ENROLL, states.AVAILABLE):
            raise exception.InvalidParameterValue(
                err=f'A node cannot be created in {provision_state!r}.'
            )
        values = dict(values)
        _check_fields({k: v for k, v in values.items() if k != 'uuid'}, 'set')
        check_driver(self.conf, values)
        # Record the interfaces the node gets (as upstream shows them),
        # so that a later change of the defaults does not move it.
        chosen = hardware.interface_names(
            self.conf, values['driver'], task_manager.interface_names(values)
        )
        for kind, name in chosen.items():
            values[f'{kind}_interface'] = name
        values.update(
            provision_state=provision_state,
            target_provision_state=None,
            reservation=None,
        )
        node = db_nodes.node_create(context, values)
        LOG.info(
            'Node %(node)s created with hardware type %(driver)s',
            {'node': node['uuid'], 'driver': node['driver']},
        )
        return node_to_dict(node)

    @rpc.expected_exceptions(*EXPECTED)
    def update_node(
        self,
        context: RequestContext,
        node_uuid: str,
        values: dict[str, Any],
        expected_revision: int | None = None,
    ) -> dict[str, Any]:
        """Apply ``values`` under the node lock, in one write; with
        ``expected_revision`` only if the node is still at the revision
        the values were computed from (a JSON patch applied by the API).

        Unsetting maintenance also clears its reason and fault (the way
        out of a clean failure).

        :raises NodeChanged: the node is at another revision; nothing
            was changed.
        """
        _check_fields(values, 'update')
        with self._acquire(context, node_uuid, 'node update') as task:
            if (
                expected_revision is not None
                and task.node.revision != expected_revision
            ):
                raise exception.NodeChanged(
                    node=node_uuid,
                    expected=expected_revision,
                    actual=task.node.revision,
                )
            if DRIVER_FIELDS & set(values):
                if not states.power_action_allowed(task.node.provision_state):
                    raise exception.InvalidState(
                        reason=f'Cannot change the hardware type or '
                        f'interfaces of node {node_uuid} while it is in '
                        f'provision state "{task.node.provision_state}"'
                    )
                check_driver(self.conf, {**task.node.as_dict(), **values})
                values = self._record_interfaces(task.node.as_dict(), values)
            values = node_rules.check_update(task.node, values)
            if values.get('maintenance') is False:
                values = {'maintenance_reason': None, 'fault': None, **values}
            released = None
            if (
                'instance_uuid' in values
                and not values['instance_uuid']
                and task.node.allocation_id is not None
            ):
                allocations.check_instance_removal(task.node)
                released = task.node.allocation_id
                values = {**values, 'allocation_id': None}
            task.update(**values)
            if released is not None:
                db_allocations.destroy(context, released, release_node=False)
            if DRIVER_FIELDS & set(values):
                task.load_driver()
            LOG.info(
                'Node %(node)s updated: %(fields)s',
                {'node': node_uuid, 'fields': ', '.join(sorted(values))},
            )
            return node_to_dict(task.node.as_dict())

    def _record_interfaces(
        self, node: dict[str, Any], values: dict[str, Any]
    ) -> dict[str, Any]:
        """With a change of driver or interfaces: every interface the
        node would leave unnamed (reset to null, or never recorded)
        gets the default it would use, recorded as at creation."""
        merged = {**node, **values}
        chosen = hardware.interface_names(
            self.conf, merged['driver'], task_manager.interface_names(merged)
        )
        return {
            **values,
            **{
                f'{kind}_interface': name
                for kind, name in chosen.items()
                if merged.get(f'{kind}_interface') is None
            },
        }

    @rpc.expected_exceptions(*EXPECTED)
    def destroy_node(self, context: RequestContext, node_uuid: str) -> None:
        """Delete a node at rest that no instance uses, or any node in
        maintenance; never a protected one (upstream's checks, in its
        order)."""
        with self._acquire(context, node_uuid, 'node deletion') as task:
            node = task.node
            if node.instance_uuid and not node.maintenance:
                raise exception.NodeAssociated(
                    node=node.uuid, instance=node.instance_uuid
                )
            node_rules.check_destroy(node)
            if (
                node.provision_state not in DELETE_ALLOWED_STATES
                and not node.maintenance
            ):
                raise exception.InvalidState(
                    reason=f'Can not delete node {node.uuid} while it is '
                    f'in provision state "{node.provision_state}". Valid '
                    'provision states to start deletion are '
                    f'{", ".join(DELETE_ALLOWED_STATES)}, or set the node '
                    'into maintenance mode'
                )
            task.destroy()
            LOG.info('Node %s deleted', node.uuid)

    # -- power

    @rpc.expected_exceptions(*EXPECTED)
    def change_power_state(
        self, context: RequestContext, node_uuid: str, target: str
    ) -> None:
        """Switch the power on a worker; ``target_power_state`` shows
        the request until it is done.

        :raises InvalidStateRequested: the conductor drives the node
            (verifying, cleaning, clean wait, deploying ...).
        :raises NodeLocked: another operation holds the node.
        """
        if target not in states.POWER_TARGETS:
            raise exception.InvalidParameterValue(
                err=f'Invalid power state {target!r}; use one of '
                f'{", ".join(sorted(states.POWER_TARGETS))}'
            )
        # The state first, without the lock: a node being cleaned is
        # locked by its worker, and "not while cleaning" (400) says more
        # than "locked, retry" (409).
        _check_power_allowed(db_nodes.node_get(context, node_uuid), target)
        with self._acquire(context, node_uuid, f'power {target}') as task:
            _check_power_allowed(task.node.as_dict(), target)
            power = task.interfaces['power']
            assert isinstance(power, base.PowerInterface)
            if target not in power.get_supported_power_states(task):
                raise exception.InvalidParameterValue(
                    err=f'The driver {task.node.driver} does not support '
                    f'the power state, {target}'
                )
            power.validate(task)
            task.spawn_after(
                self.pool, provisioning.do_node_power_action, target
            )
            task.update(target_power_state=target, last_error=None)

    # -- provisioning

    @rpc.expected_exceptions(*EXPECTED)
    def do_provisioning_action(
        self,
        context: RequestContext,
        node_uuid: str,
        action: str,
        clean_steps: list[dict[str, Any]] | None = None,
        configdrive: str | dict[str, Any] | None = None,
        rescue_password: str | None = None,
        deploy_steps: list[dict[str, Any]] | None = None,
        service_steps: list[dict[str, Any]] | None = None,
        disable_ramdisk: bool | None = None,
    ) -> None:
        """Start ``action`` (a key of :data:`states.ALLOWED_PROVISION_VERBS`);
        ``deploy_steps`` (API 1.69) with a deployment, ``service_steps``
        and ``disable_ramdisk`` (1.87, 1.108) with servicing.

        :raises InvalidParameterValue: unknown action or clean steps.
        :raises InvalidStateRequested: not possible in the node's state.
        :raises NodeInMaintenance: provide, clean, deploy.
        """
        event = states.ALLOWED_PROVISION_VERBS.get(action)
        if event is None:
            raise exception.InvalidParameterValue(
                err=f'Unknown provision action {action!r}; use one of '
                f'{", ".join(sorted(states.ALLOWED_PROVISION_VERBS))}'
            )
        if event == 'abort':
            self._abort(context, node_uuid)
            return
        with self._acquire(
            context, node_uuid, f'provision action {action}'
        ) as task:
            node = task.node
            states.next_state(node.provision_state, event, node.uuid)
            if node.maintenance and event in MAINTENANCE_REFUSED_EVENTS:
                raise exception.NodeInMaintenance(op=action, node=node.uuid)
            node_rules.check_action(node, event, action)
            if event in ('deploy', 'rebuild'):
                # Refused now (400) when a template or requested step is
                # not the node's; remembered for the deployment.
                deploy_steps_mod.validate(task, deploy_steps)
                info = node.driver_internal_info
                info.pop(deploy_steps_mod.USER_STEPS_KEY, None)
                if deploy_steps:
                    info[deploy_steps_mod.USER_STEPS_KEY] = [
                        deploy_steps_mod.normalized(s) for s in deploy_steps
                    ]
                values: dict[str, Any] = {'driver_internal_info': info}
                if configdrive:
                    if isinstance(configdrive, dict):
                        # Upstream's build_configdrive: an ISO, packed.
                        configdrive = configdrive_mod.build(
                            node.uuid, node.name, configdrive
                        )
                    # Upstream's _store_configdrive (no object store).
                    values['instance_info'] = {
                        **node.instance_info,
                        'configdrive': configdrive,
                    }
                task.update(**values)
            if event == 'service':
                self._start_service(
                    task, service_steps or [], bool(disable_ramdisk)
                )
                return
            self._start(task, event, clean_steps, rescue_password)

    def _start_service(
        self,
        task: task_manager.Task,
        service_steps: list[dict[str, Any]],
        disable_ramdisk: bool,
    ) -> None:
        """Check the steps and the power interface (400 otherwise, the
        node unchanged), reserve a worker, process ``service``."""
        node = task.node
        if not service_steps:
            raise exception.InvalidParameterValue(
                err='"service_steps" is required when setting target '
                'provision state to service'
            )
        try:
            task.interfaces['power'].validate(task)
        except exception.InvalidParameterValue as exc:
            raise exception.InvalidParameterValue(
                err=f'Validation of node {node.uuid} for servicing failed: '
                f'{exc.format_message()}'
            )
        validated = servicing.validate_steps(
            task, service_steps, disable_ramdisk
        )
        task.spawn_after(
            self.pool, servicing.do_node_service, validated, disable_ramdisk
        )
        task.process_event('service', last_error=None)

    def _abort(self, context: RequestContext, node_uuid: str) -> None:
        """``abort``: with the lock (clean wait, clean hold, cleaning
        between steps, inspect wait, wait call-back, rescue wait), or as
        a request to the worker
        running a step (see :mod:`clean_wait`).

        :raises InvalidStateRequested: nothing to abort in that state.
        :raises NodeLocked: locked by another operation.
        """
        error = None
        for _attempt in range(3):
            try:
                with self._acquire(context, node_uuid, 'abort') as task:
                    if task.node.provision_state == states.INSPECTWAIT:
                        inspection.abort_inspection(task)
                    elif task.node.provision_state == states.DEPLOYWAIT:
                        deploy_wait.start_abort(task)
                    elif task.node.provision_state == states.RESCUEWAIT:
                        rescue.abort(task)
                    elif task.node.provision_state in states.SERVICING_STATES:
                        servicing.start_abort(task)
                    else:
                        clean_wait.start_abort(task, self.pool)
                    return
            except exception.NodeLocked as exc:
                error = exc
                if clean_wait.request_abort(context, node_uuid):
                    return
        assert error is not None
        raise error

    def _start(
        self,
        task: task_manager.Task,
        event: str,
        clean_steps: list[dict[str, Any]] | None,
        rescue_password: str | None = None,
    ) -> None:
        """Validate, reserve a worker, process ``event`` (lock held)."""
        node = task.node
        pool = self.pool
        if node.provision_state in states.SERVICING_STATES and event in (
            'delete',
            'rescue',
        ):
            # Undeploy or rescue out of service failed or service wait:
            # nothing of the servicing goes on.
            servicing.wipe_service_info(task)
        if node.provision_state == states.DEPLOYWAIT and event == 'delete':
            deploy_wait.stop_for_undeploy(task)
        if event == 'manage' and node.provision_state == states.ENROLL:
            task.spawn_after(pool, provisioning.do_node_verify)
            task.process_event(event)
        elif event == 'manage':
            # From available or clean failed: nothing of a cleaning is
            # left on a manageable node.
            clean_state.wipe_cleaning_info(task)
            task.process_event(event)
        elif event == 'inspect':
            task.spawn_after(pool, provisioning.do_node_inspect)
            task.process_event(event, last_error=None)
        elif event == 'unhold' and node.provision_state == states.SERVICEHOLD:
            servicing.unhold(task, pool)
        elif event == 'unhold':
            clean_wait.unhold(task, pool)
        elif event == 'provide':
            task.spawn_after(pool, cleaning.do_node_clean)
            task.process_event(
                event, target_state=states.AVAILABLE, last_error=None
            )
        elif event == 'clean':
            if not clean_steps:
                raise exception.InvalidParameterValue(
                    err='Manual cleaning of node '
                    f'{node.uuid} needs clean_steps'
                )
            validated = conductor_steps.validate_manual_steps(
                clean_steps,
                conductor_steps.manual_steps(task, task.interfaces, self.conf),
            )
            task.spawn_after(pool, cleaning.do_node_clean, validated)
            task.process_event(
                event, target_state=states.MANAGEABLE, last_error=None
            )
        elif event in ('deploy', 'rebuild'):
            provisioning.validate_for_deploy(task)
            task.spawn_after(pool, provisioning.do_node_deploy)
            task.process_event(event, last_error=None)
        elif event == 'adopt':
            task.spawn_after(pool, provisioning.do_node_adopt)
            task.process_event(event, last_error=None)
        elif event == 'rescue':
            if not rescue_password:
                raise exception.MissingParameterValue(
                    err='A non-empty "rescue_password" is required when '
                    'setting target provision state to rescue'
                )
            rescue.validate(task)
            task.spawn_after(pool, rescue.do_node_rescue)
            task.process_event(
                event,
                last_error=None,
                instance_info={
                    **node.instance_info,
                    rescue.PASSWORD_KEY: rescue_password,
                },
            )
        elif event == 'unrescue':
            rescue.validate(task)
            task.spawn_after(pool, rescue.do_node_unrescue)
            task.process_event(event, last_error=None)
        elif event == 'delete':
            task.spawn_after(pool, provisioning.do_node_tear_down)
            task.process_event(
                event,
                last_error=None,
                instance_info=(rescue.without_password(node.instance_info)),
            )
        else:  # pragma: no cover - ALLOWED_PROVISION_VERBS has no other
            raise exception.InvalidParameterValue(
                err=f'Unsupported provision event {event!r}'
            )

    # -- RAID

    @rpc.expected_exceptions(*EXPECTED)
    def set_target_raid_config(
        self,
        context: RequestContext,
        node_uuid: str,
        target_raid_config: dict[str, Any],
    ) -> None:
        """Store the node's target RAID configuration (``{}`` clears
        it), once its RAID interface (``validate_raid_config``) accepts
        it.

        :raises UnsupportedDriverExtension: a configuration for a node
            without a RAID interface (upstream's ``no-raid``).
        """
        with self._acquire(
            context, node_uuid, 'setting target RAID config'
        ) as task:
            if target_raid_config:
                validate = getattr(
                    task.interfaces.get('raid'), 'validate_raid_config', None
                )
                if validate is None:
                    raise exception.UnsupportedDriverExtension(
                        driver=task.node.driver, extension='raid'
                    )
                validate(task, target_raid_config)
            task.update(target_raid_config=target_raid_config)

    # -- cleaning

    @rpc.expected_exceptions(*EXPECTED)
    def get_clean_steps(
        self, context: RequestContext, node_uuid: str
    ) -> dict[str, list[dict[str, Any]]]:
        """``{'automated': steps automated cleaning runs, in order,
        'manual': the steps only manual cleaning runs (priority 0)}``
        (manual cleaning accepts the steps of both lists)."""
        with self._acquire(
            context, node_uuid, 'get clean steps', shared=True
        ) as task:
            return conductor_steps.all_steps_for_api(
                task, task.interfaces, self.conf
            )

    def continue_node_clean(
        self, context: RequestContext, node_uuid: str
    ) -> None:
        """A callback: the asynchronous step of a node in ``clean wait``
        finished (a cast: refusals are logged, nobody waits for them).

        The lock is awaited patiently (:data:`CALLBACK_LOCK_PATIENCE`):
        a callback arriving while the periodic task polls the node, or
        an API request holds it, must not be lost.
        """
        try:
            with self._acquire(
                context,
                node_uuid,
                'continue cleaning',
                patience=self.callback_patience,
            ) as task:
                node = task.node
                if node.provision_state != states.CLEANWAIT:
                    raise exception.InvalidStateRequested(
                        action='continue cleaning',
                        node=node.uuid,
                        state=node.provision_state,
                    )
                clean_wait.continue_cleaning(task, self.pool)
        except exception.IronicLiteException as exc:
            LOG.warning(
                'Cannot continue cleaning node %(node)s: %(err)s',
                {'node': node_uuid, 'err': exc},
            )
