"""The compute agent's RPC endpoint and its lifecycle hooks.

The endpoint is thin: building and deleting are in ``instance_ops``,
startup in ``startup``.
"""

from collections.abc import Callable
import functools
import inspect
from pathlib import Path
from typing import Any
from typing import cast

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from lite_common import context as lite_context
from lite_common import rpc
from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.common import console_output
from nova_lite.common import instance_ops
from nova_lite.common import power_state
from nova_lite.common import power_update
from nova_lite.common import states
from nova_lite.compute import busy
from nova_lite.compute import cleanup
from nova_lite.compute import evacuation
from nova_lite.compute import holder as compute_holder
from nova_lite.compute import housekeeping
from nova_lite.compute import image_client
from nova_lite.compute import move
from nova_lite.compute import power
from nova_lite.compute import rebuild
from nova_lite.compute import rescue
from nova_lite.compute import resources
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute import shelve
from nova_lite.compute import snapshot
from nova_lite.compute import startup
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import instance_action
from nova_lite.objects.instance import Instance
from nova_lite.objects.migration import Migration
from nova_lite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)
# A move whose record did not change for this many housekeeping
# intervals is taken up again by the agent whose step it is.
STALL_PASSES = 3


def _one_step_per_move(method: Callable[..., None]) -> Callable[..., None]:
    """Run a move's step only while no other thread of this agent works
    on the same migration (a redelivered request, a resumed step)."""

    @functools.wraps(method)
    def step(
        self: 'ComputeManager',
        context: RequestContext,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        # oslo.messaging passes the arguments by name.
        bound = inspect.signature(method).bind(self, context, *args, **kwargs)
        migration = bound.arguments['migration']
        with self.busy.hold(migration.id) as free:
            if not free:
                LOG.info(
                    'Migration %s: %s is already under way here',
                    migration.uuid,
                    method.__name__,
                    instance=bound.arguments['instance'],
                )
                return
            method(*bound.args, **bound.kwargs)

    return step


def _one_task_per_server(method: Callable[..., None]) -> Callable[..., None]:
    """Work on a server's task only while no other thread of this agent
    does (a housekeeping pass taking up the task as lost, see
    compute/task_recovery.py): wait for it, then go on; the method
    re-reads the server and finds what that thread did."""

    @functools.wraps(method)
    def task(
        self: 'ComputeManager',
        context: RequestContext,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        bound = inspect.signature(method).bind(self, context, *args, **kwargs)
        instance = bound.arguments['instance']
        with self.busy.hold(instance.uuid, wait=True) as free:
            if not free:
                LOG.warning(
                    '%s: the server has been worked on by another '
                    'thread for over %s s; the request is left to '
                    'the housekeeping pass',
                    method.__name__,
                    busy.WAIT_LIMIT,
                    instance=instance,
                )
                return
            method(*bound.args, **bound.kwargs)

    return task


def _server_marked_busy(method: Callable[..., None]) -> Callable[..., None]:
    """Mark the server busy while the method runs, without waiting for
    another thread that holds it: a delete goes on beside a build (the
    build's compare-and-swap finds the server deleted; a bare metal
    deploy is not waited for), and no housekeeping pass takes the
    delete up as lost meanwhile."""

    @functools.wraps(method)
    def task(
        self: 'ComputeManager',
        context: RequestContext,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        bound = inspect.signature(method).bind(self, context, *args, **kwargs)
        with self.busy.hold(bound.arguments['instance'].uuid):
            method(*bound.args, **bound.kwargs)

    return task


def _event(name: str) -> Callable[..., Any]:
    """Run the RPC method as the event ``compute_<name>`` of the
    request's instance action (upstream's event names)."""

    def wrap(method: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(method)
        def recorded(
            self: 'ComputeManager',
            context: RequestContext,
            *args: Any,
            **kwargs: Any,
        ) -> None:
            instance = (
                inspect.signature(method)
                .bind(self, context, *args, **kwargs)
                .arguments['instance']
            )
            with instance_action.recorded(
                context, instance.uuid, f'compute_{name}', self.host
            ):
                method(self, context, *args, **kwargs)

        return recorded

    return wrap


class ComputeManager:
    target = messaging.Target(version='1.11')

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        host: str,
        state_path: str,
        identity_dirs: list[Path],
        driver_name: str | None = None,
        on_replaced: Callable[[], None] | None = None,
    ) -> None:
        self.conf = conf
        self.host = host
        self.state_path = state_path
        self.identity_dirs = identity_dirs
        # This process as the holder of the host name; nothing is
        # destroyed unless it holds it (compute/holder.py).
        self.holder = compute_holder.Holder(host, on_replaced)
        self.driver: Any = compute_holder.FencedDriver(
            virt_driver.load_driver(conf, host, state_path, driver_name),
            self.holder,
        )
        self.busy = busy.Busy()
        self.cleaner = cleanup.Cleaner(conf, self.driver, host, self.busy)
        self.incoming = evacuation.Incoming(self.driver, host, self.busy)
        self.conductor = conductor_rpcapi.ConductorAPI(conf)
        self.compute_rpcapi = compute_rpcapi.ComputeAPI(conf)
        self.images = image_client.ImageClient(conf)
        self.service: Any = None
        self.nodes: dict[str, Any] = {}
        # Set when an operator deleted this agent's service record while
        # it ran: reporting stops until a restart registers it again.
        self.record_deleted = False

    # lifecycle -----------------------------------------------------------

    def init_host(self) -> None:
        """Start up once a conductor answers. A conductor that dies in
        the middle (its answer to an object call is lost: the call times
        out) makes the agent start up again from the beginning, as a
        restart of the agent would, instead of exiting: start-up reads
        everything it decides on afresh, so running it again after a
        partial run is safe."""
        context = lite_context.get_admin_context()
        while True:
            self.conductor.wait_until_ready(context)
            try:
                self.service, self.nodes = startup.start(
                    context,
                    self.conf,
                    self.host,
                    self.driver,
                    self.identity_dirs,
                    self.cleaner,
                    self.compute_rpcapi,
                    self.busy,
                    self.holder,
                )
                return
            except messaging.MessagingTimeout:
                LOG.warning(
                    'Compute %s: the conductor did not answer an '
                    'object call during start-up (it may have '
                    'been restarted); starting up again',
                    self.host,
                )

    def housekeeping(self) -> None:
        """Periodic: clean up as at start-up (copies evacuated away once
        done, copies of deleted instances), then resume evacuations to
        this host, moves, builds and server tasks that were interrupted
        or whose request was lost."""
        if self.record_deleted or self.holder.replaced:
            return
        context = lite_context.get_admin_context()
        self.cleaner.run(context, self.nodes)
        self.incoming.resume(context, self.nodes)
        housekeeping.resume_interrupted(
            context, self, STALL_PASSES * self.conf.cleanup_interval
        )
        LOG.debug(
            'Housekeeping pass done; the next in %ss',
            self.conf.cleanup_interval,
        )

    def heartbeat(self) -> None:
        if self.record_deleted or self.holder.replaced:
            return
        try:
            self.service.heartbeat()
        except exception.ServiceNotFound:
            self._record_gone()
        except exception.ComputeReplaced as exc:
            self.holder.found_replaced(exc)

    def stop(self) -> None:
        """A clean stop: let the host name go."""
        self.holder.let_go()

    def update_resources(self) -> None:
        if self.record_deleted or self.holder.replaced:
            return
        context = lite_context.get_admin_context()
        try:
            if self.driver.manages_many_nodes:
                self._discover(context)
            for node in self.nodes.values():
                node._context = context
                resources.report(context, self.conf, self.driver, node)
        except exception.ComputeNodeNotFound:
            self._record_gone()

    def _discover(self, context: RequestContext) -> None:
        """A driver of many nodes (bare metal): records for nodes that
        appeared since start-up or that this agent serves now (one list
        call; the report then reads each node from it); nodes another
        agent serves now are dropped."""
        available = self.driver.get_available_nodes()
        for nodename in set(self.nodes) - set(available):
            # Served by another agent now (a peer came back).
            LOG.info('No longer serving node %s', nodename)
            del self.nodes[nodename]
        for nodename in available:
            if nodename not in self.nodes:
                self.nodes[nodename] = resources.ensure_node(
                    context,
                    self.conf,
                    self.host,
                    self.service.id,
                    nodename,
                    self.driver.get_node_resources(nodename),
                    self.driver.get_node_uuid(nodename),
                )
                LOG.info('Serving node %s', nodename)

    def _record_gone(self) -> None:
        self.record_deleted = True
        LOG.error(
            'The service record %s of nova-lite-compute on host %s '
            '(or its compute node) was deleted while the agent ran, '
            'e.g. by "openstack compute service delete". The agent '
            'stops reporting and the service stays absent; restart '
            'it to register again.',
            self.service.uuid,
            self.host,
        )

    # RPC -----------------------------------------------------------------

    @_one_task_per_server
    def build_and_run_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        with instance_action.recorded(
            context,
            instance.uuid,
            'compute__do_build_and_run_instance',
            self.host,
        ) as outcome:
            instance_ops.build(context, self.driver, instance)
            if instance.vm_state == 'error':
                outcome.error = (instance.fault or {}).get(
                    'message', 'Build failed'
                )

    @_server_marked_busy
    @_event('terminate_instance')
    def terminate_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        node = self.nodes.get(instance.node or '')
        settle = None
        if self.driver.manages_many_nodes and node is not None:
            # A whole machine leaves the pool before its instance record
            # goes (its report says it is cleaning), so that no boot
            # takes it in between.
            def settle() -> None:
                self.driver.get_available_nodes()
                resources.report(context, self.conf, self.driver, node)

        instance_ops.terminate(context, self.driver, instance, settle)

    # stop, start, reboot, pause, suspend (compute/power.py) -------------

    def _power(
        self, context: RequestContext, instance: Instance, task: str
    ) -> None:
        """Do the power task if the server is still in it, here (a state
        reset, a delete or a move since the request wins)."""
        tasks = (
            (states.REBOOTING, states.REBOOTING_HARD)
            if task == states.REBOOTING
            else (task,)
        )
        instance = self._current(context, instance, task, tasks)
        if instance is not None:
            power.do(context, self.driver, instance, self.host)

    @_one_task_per_server
    def stop_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        self._power(context, instance, states.POWERING_OFF)

    @_one_task_per_server
    def start_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        self._power(context, instance, states.POWERING_ON)

    @_one_task_per_server
    def reboot_instance(
        self, context: RequestContext, instance: Instance, reboot_type: str
    ) -> None:
        self._power(context, instance, states.REBOOTING)

    @_one_task_per_server
    def pause_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        self._power(context, instance, states.PAUSING)

    @_one_task_per_server
    def unpause_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        self._power(context, instance, states.UNPAUSING)

    @_one_task_per_server
    def suspend_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        self._power(context, instance, states.SUSPENDING)

    @_one_task_per_server
    def resume_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        self._power(context, instance, states.RESUMING)

    @_one_task_per_server
    def power_update(
        self,
        context: RequestContext,
        instance: Instance,
        target_power_state: str,
    ) -> None:
        """The power-update external event (common/power_update.py)."""
        try:
            instance = instance_obj.Instance.get_by_uuid(
                context, instance.uuid
            )
        except exception.InstanceNotFound:
            LOG.info(
                'No power update: the server was deleted', instance=instance
            )
            return
        if instance.host != self.host:
            LOG.info(
                'No power update: the server is on %s now',
                instance.host,
                instance=instance,
            )
            return
        power_update.do(
            context, self.driver, instance, target_power_state, self.host
        )

    # shelve, offload, unshelve (compute/shelve.py) ------------------------

    def _current(
        self,
        context: RequestContext,
        instance: Instance,
        task: str,
        tasks: tuple[str, ...] | None = None,
    ) -> Any:
        """The instance re-read, if it is still in ``task`` (or one of
        ``tasks``) on this host; None, logged, when it was deleted,
        changed or moved since the request."""
        try:
            instance = instance_obj.Instance.get_by_uuid(
                context, instance.uuid
            )
        except exception.InstanceNotFound:
            LOG.info('Not %s: the server was deleted', task, instance=instance)
            return None
        if instance.task_state not in (tasks or (task,)):
            LOG.info(
                'Not %s: the server is in task %s now',
                task,
                instance.task_state,
                instance=instance,
            )
            return None
        if instance.host != self.host:
            # A request that waited (this host was frozen) while the
            # server moved on: the copy here is not the server.
            LOG.warning(
                'Not %s: the server is on %s now, not here',
                task,
                instance.host,
                instance=instance,
            )
            return None
        return instance

    @_one_task_per_server
    def shelve_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        instance = self._current(context, instance, states.SHELVING)
        if instance is not None:
            shelve.shelve(
                context,
                self.conf,
                self.driver,
                self.images,
                instance,
                self.host,
            )

    @_one_task_per_server
    def shelve_offload_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        instance = self._current(context, instance, states.SHELVING_OFFLOADING)
        if instance is not None:
            shelve.offload(context, self.driver, instance, self.host)

    @_one_task_per_server
    def unshelve_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        instance = self._current(context, instance, states.UNSHELVING)
        if instance is None:
            return
        if instance.compute_id not in {n.id for n in self.nodes.values()}:
            LOG.warning(
                'Not unshelving: the server is placed on %s/%s, '
                'not on this host',
                instance.host,
                instance.node,
                instance=instance,
            )
            return
        shelve.unshelve(
            context, self.conf, self.driver, self.images, instance, self.host
        )

    @_one_task_per_server
    def rebuild_server(
        self, context: RequestContext, instance: Instance
    ) -> None:
        instance = self._current(context, instance, states.REBUILDING)
        if instance is not None:
            rebuild.rebuild(context, self.driver, instance, self.host)

    # createImage, createBackup (compute/snapshot.py) ----------------------

    @_one_task_per_server
    def snapshot_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        instance = self._current(
            context,
            instance,
            states.IMAGE_SNAPSHOT_PENDING,
            (states.IMAGE_SNAPSHOT_PENDING, states.IMAGE_BACKUP),
        )
        if instance is not None:
            snapshot.snapshot(
                context,
                self.conf,
                self.driver,
                self.images,
                instance,
                self.host,
            )

    # rescue, unrescue (compute/rescue.py) ---------------------------------

    @_one_task_per_server
    def rescue_instance(
        self,
        context: RequestContext,
        instance: Instance,
        rescue_password: str,
        rescue_image_ref: str | None,
    ) -> None:
        instance = self._current(context, instance, states.RESCUING)
        if instance is not None:
            rescue.rescue(
                context,
                self.driver,
                instance,
                self.host,
                rescue_password,
                rescue_image_ref,
            )

    @_one_task_per_server
    def unrescue_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        instance = self._current(context, instance, states.UNRESCUING)
        if instance is not None:
            rescue.unrescue(context, self.driver, instance, self.host)

    # deferred delete (rules in compute_api/deferred_delete.py) ---------------

    @_one_task_per_server
    def soft_delete_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        self._power(context, instance, states.SOFT_DELETING)

    @_one_task_per_server
    def restore_instance(
        self, context: RequestContext, instance: Instance
    ) -> None:
        self._power(context, instance, states.RESTORING)

    # host information (calls) ------------------------------------------

    @rpc.expected_exceptions(NotImplementedError)
    def get_host_uptime(self, context: RequestContext) -> str:
        return cast(str, self.driver.get_host_uptime())

    @rpc.expected_exceptions(
        NotImplementedError, exception.InstanceInvalidState
    )
    def get_instance_diagnostics(
        self, context: RequestContext, instance: Instance
    ) -> dict[str, Any]:
        """Of a running guest only (409 otherwise, as upstream)."""
        state = self.driver.power_state(instance)
        if state != power_state.RUNNING:
            raise exception.InstanceInvalidState(
                action='get_diagnostics',
                instance_uuid=instance.uuid,
                attr='power state',
                state=state,
            )
        LOG.info('Retrieving diagnostics', instance=instance)
        return cast(
            'dict[str, Any]', self.driver.get_instance_diagnostics(instance)
        )

    @rpc.expected_exceptions(
        NotImplementedError, exception.ConsoleNotAvailable
    )
    def get_console_output(
        self,
        context: RequestContext,
        instance: Instance,
        tail_length: int | None,
    ) -> str:
        """The guest's console log, its last ``tail_length`` lines
        (all when None)."""
        LOG.info('Get console output', instance=instance)
        return console_output.tail(
            self.driver.get_console_output(instance), tail_length
        )

    def _node(self, nodename: str | None) -> Any:
        """This agent's node of that name (its only one, by default)."""
        node = self.nodes.get(nodename or '')
        if node is None and len(self.nodes) == 1:
            node = next(iter(self.nodes.values()))
        return node

    def _named_node(
        self,
        instance: Instance,
        migration: Migration,
        kind: str,
        which: str,
        nodename: str | None,
    ) -> Any:
        """This agent's node ``nodename``; None, logged, without it."""
        node = self._node(nodename)
        if node is None:
            LOG.error(
                '%s %s names %s %s, which this host does not have',
                kind,
                migration.uuid,
                which,
                nodename,
                instance=instance,
            )
        return node

    @_event('rebuild_instance')
    def rebuild_instance(
        self, context: RequestContext, instance: Instance, migration: Migration
    ) -> None:
        """Rebuild an instance evacuated to this host."""
        node = self._named_node(
            instance, migration, 'Evacuation', 'node', migration.dest_node
        )
        if node is None:
            evacuation.fail(
                instance,
                migration,
                f'Evacuation target '
                f'{self.host} has no node '
                f'{migration.dest_node}.',
            )
            return
        self.incoming.evacuate_here(node, instance, migration)

    # cold migration and resize (flows in compute/move.py) -----------------

    def _dest_node(self, instance: Instance, migration: Migration) -> Any:
        return self._named_node(
            instance, migration, 'Migration', 'node', migration.dest_node
        )

    @_event('prep_resize')
    @_one_step_per_move
    def prep_resize(
        self, context: RequestContext, instance: Instance, migration: Migration
    ) -> None:
        node = self._dest_node(instance, migration)
        if node is None:
            move.clear_move(instance, ['resize_prep'])
            migration.transition(['pre-migrating'], 'error')
            return
        move.prep_resize(
            context,
            self.compute_rpcapi,
            self.conductor,
            self.driver,
            node,
            instance,
            migration,
            self.conf.scheduler.max_attempts,
        )

    @_event('resize_instance')
    @_one_step_per_move
    @_one_task_per_server
    def resize_instance(
        self,
        context: RequestContext,
        instance: Instance,
        migration: Migration,
        migrate_data: dict[str, Any],
    ) -> None:
        move.resize_instance(
            context,
            self.compute_rpcapi,
            self.driver,
            instance,
            migration,
            migrate_data,
        )

    @_event('finish_resize')
    @_one_step_per_move
    def finish_resize(
        self, context: RequestContext, instance: Instance, migration: Migration
    ) -> None:
        node = self._dest_node(instance, migration)
        if node is not None:
            move.finish_resize(context, self.driver, node, instance, migration)

    @_event('confirm_resize')
    @_one_step_per_move
    def confirm_resize(
        self, context: RequestContext, instance: Instance, migration: Migration
    ) -> None:
        move.confirm_resize(
            context,
            self.driver,
            self._node(migration.source_node),
            instance,
            migration,
        )

    @_event('revert_resize')
    @_one_step_per_move
    def revert_resize(
        self, context: RequestContext, instance: Instance, migration: Migration
    ) -> None:
        move.revert_resize(
            context, self.compute_rpcapi, self.driver, instance, migration
        )

    @_event('finish_revert_resize')
    @_one_step_per_move
    def finish_revert_resize(
        self, context: RequestContext, instance: Instance, migration: Migration
    ) -> None:
        node = self._named_node(
            instance,
            migration,
            'Migration',
            'source node',
            migration.source_node,
        )
        if node is None:
            return
        move.finish_revert_resize(
            context, self.driver, node, instance, migration
        )
