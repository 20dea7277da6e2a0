"""The ironic-lite-conductor service (used by the daemon and the AIO).

:func:`conductor_service` builds a runnable that, on :meth:`start`,
loads every enabled hardware type and interface (refusing to start on a
configuration error, a duplicate clean step priority included),
registers the conductor with its hardware types, releases and resumes
the nodes it held before a crash, serves the RPC topic
``ironic-lite.conductor`` as ``[DEFAULT]host`` and runs its periodic
tasks.

One host name, one live process: the process registers with a fresh
incarnation (:mod:`ironic_lite.common.conductor_identity`) and refuses
to start (:class:`~ironic_lite.exception.ConductorHostInUse`) while
another process holds the name with a fresh heartbeat. A process that
finds at a heartbeat that another took its name over (it was frozen
past the heartbeat timeout, or an operator released the name) writes
nothing more under its locks, takes no more work and stops the process
with exit status 78 (``on_replaced``).

:meth:`stop` refuses new work and from then on heartbeats as
*offline*: the conductor leaves the hash ring at once (requests and
nodes go to the others) but, heartbeating, is not dead, so nobody
clears the locks of the steps it still runs. It stops serving and its
periodic tasks, lets running flows finish (a cleaning stops after its
running step: the node stays in ``cleaning``, unlocked, with the index
of its next step, for the conductor that now owns it to resume), and
only then stops heartbeating. So a step is never run by this conductor
and another at once, however long it takes; a stop never fails a node.
(A stop that outlives its service manager's patience, systemd's
``TimeoutStopSec``, ends in a kill: the node is then taken over as from
a dead conductor.)

Everything reads the ``conf`` given, never the global ``cfg.CONF``: the
all-in-one runs nova_lite and ironic_lite with separate configurations.
"""

from collections.abc import Callable

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from ironic_lite import exception
from ironic_lite import metrics as ironic_metrics
from ironic_lite.common import interfaces
from ironic_lite.common import stopping
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.common.conductor_identity import this_process
from ironic_lite.conductor import allocations
from ironic_lite.conductor import boot_device
from ironic_lite.conductor import boot_mode
from ironic_lite.conductor import console
from ironic_lite.conductor import indicators
from ironic_lite.conductor import manager as conductor_manager
from ironic_lite.conductor import periodics as conductor_periodics
from ironic_lite.conductor import ports
from ironic_lite.conductor import power_sync
from ironic_lite.conductor import ramdisk
from ironic_lite.conductor import rpcapi
from ironic_lite.conductor import steps as conductor_steps
from ironic_lite.conductor import traits
from ironic_lite.conductor import validation
from ironic_lite.conductor import vendor_passthru
from ironic_lite.conductor import vifs
from ironic_lite.conductor import vmedia
from ironic_lite.conductor import volumes
from ironic_lite.conductor import workers
from ironic_lite.db import conductors as db_conductors
from ironic_lite.drivers import hardware
from ironic_lite.drivers import image_server
from lite_common import context as lite_context
from lite_common import rpc
from lite_common import service as lite_service

LOG = logging.getLogger(__name__)


def load_enabled_drivers(conf: cfg.ConfigOpts) -> list[str]:
    """Load every enabled interface with every enabled hardware type that
    supports it, check their clean step priorities; returns the hardware
    types.

    :raises InvalidParameterValue: (subclasses) a hardware type or
        interface cannot load, or a hardware type has no enabled
        interface of some type.
    :raises InvalidParameterValue: a malformed
        ``[conductor]clean_step_priority_override``.
    :raises DuplicateCleanStepPriority: naming both steps.
    """
    overrides = conductor_steps.priority_overrides(conf)
    hardware_types = list(conf.enabled_hardware_types)
    if not hardware_types:
        raise exception.ConfigError(
            reason='enabled_hardware_types is empty: the conductor could '
            'not manage any node'
        )
    checked: set[tuple[str, str]] = set()
    known_steps: set[tuple[str, str]] = set()
    for hw_type in hardware_types:
        # The defaults first: every interface type needs a usable one.
        hardware.load_interfaces(conf, hw_type, {})
        for kind in interfaces.INTERFACE_TYPES:
            for name in getattr(conf, f'enabled_{kind}_interfaces'):
                if (kind, name) in checked:
                    continue
                try:
                    loaded = hardware.load_interfaces(
                        conf, hw_type, {kind: name}
                    )[kind]
                except exception.InterfaceNotSupported:
                    continue
                conductor_steps.check_duplicate_priorities(loaded, conf)
                known_steps.update(
                    (kind, step['step'])
                    for step in loaded.clean_step_definitions()
                )
                checked.add((kind, name))
    for interface, step in sorted(set(overrides) - known_steps):
        LOG.warning(
            '[conductor]clean_step_priority_override names the '
            'clean step %s.%s, which no enabled %s interface has; '
            'it has no effect',
            interface,
            step,
            interface,
        )
    ironic_metrics.clean_steps_known(
        f'{kind}.{step}' for kind, step in sorted(known_steps)
    )
    LOG.info(
        'Hardware types loaded: %s; interfaces: %s',
        ', '.join(hardware_types),
        ', '.join(f'{kind}:{name}' for kind, name in sorted(checked)),
    )
    return hardware_types


class ConductorService:
    """One bare metal conductor: RPC server, worker pool, periodics."""

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        on_replaced: Callable[[], None] | None = None,
    ) -> None:
        self.conf = conf
        self.identity = ConductorIdentity.new(conf.host)
        self.host: str = conf.host
        self.name = f'ironic-lite-conductor ({self.host})'
        #: Called (once) when another process took the host name over.
        self.on_replaced = on_replaced
        self.replaced = False
        self.pool: workers.WorkerPool | None = None
        self.periodics: conductor_periodics.ConductorPeriodics | None = None
        self.service: lite_service.Service | None = None
        self.heartbeat_task: lite_service.PeriodicTask | None = None
        self.hardware_types: list[str] = []
        self._stopping = False

    def _heartbeat(self) -> None:
        if self.periodics is None or self.replaced:
            return
        try:
            self.periodics.heartbeat(online=not self._stopping)
        except exception.ConductorReplaced as exc:
            self._on_replaced(exc)

    def _on_replaced(self, exc: exception.ConductorReplaced) -> None:
        """Another process holds the host name: take no more work (the
        flows still running are fenced at their next write or
        checkpoint) and have the process stop."""
        self.replaced = True
        LOG.error(
            "%s This process stops; its nodes are the other process's now.",
            exc,
        )
        if self.pool is not None:
            self.pool.stop_accepting()
        if self.on_replaced is not None:
            self.on_replaced()

    def _power_sync_tasks(self) -> list[lite_service.PeriodicTask]:
        """The power state sync and its recovery, unless disabled (an
        interval of 0)."""
        options = self.conf.conductor
        sync = power_sync.PowerSync(self.conf, self.identity)
        tasks = []
        if options.sync_power_state_interval > 0:
            tasks.append(
                lite_service.PeriodicTask(
                    f'ironic-conductor-power-sync-{self.host}',
                    sync.sync_power_states,
                    options.sync_power_state_interval,
                )
            )
        if options.power_failure_recovery_interval > 0:
            tasks.append(
                lite_service.PeriodicTask(
                    f'ironic-conductor-power-recovery-{self.host}',
                    sync.recover_power_failures,
                    options.power_failure_recovery_interval,
                )
            )
        return tasks

    def _periodic_tasks(
        self, periodics: conductor_periodics.ConductorPeriodics
    ) -> list[lite_service.PeriodicTask]:
        options = self.conf.conductor
        return self._power_sync_tasks() + [
            lite_service.PeriodicTask(
                f'ironic-conductor-takeover-{self.host}',
                periodics.take_over,
                options.heartbeat_interval,
            ),
            lite_service.PeriodicTask(
                f'ironic-conductor-clean-wait-{self.host}',
                periodics.check_clean_wait,
                options.clean_step_poll_interval,
            ),
            lite_service.PeriodicTask(
                f'ironic-conductor-service-wait-{self.host}',
                periodics.check_service_wait,
                options.clean_step_poll_interval,
            ),
            lite_service.PeriodicTask(
                f'ironic-conductor-deploy-wait-{self.host}',
                periodics.check_deploy_wait,
                options.clean_step_poll_interval,
            ),
            lite_service.PeriodicTask(
                f'ironic-conductor-rescue-wait-{self.host}',
                periodics.check_rescue_wait,
                options.clean_step_poll_interval,
            ),
            lite_service.PeriodicTask(
                f'ironic-conductor-inspect-wait-{self.host}',
                periodics.check_inspect_wait,
                options.clean_step_poll_interval,
            ),
        ]

    def _endpoints(self) -> list[object]:
        """The RPC endpoints, each acting as this process."""
        conf, identity, pool = self.conf, self.identity, self.pool
        assert pool is not None
        return [
            conductor_manager.ConductorManager(conf, identity, pool),
            volumes.VolumeManager(conf, identity),
            ports.PortManager(conf, identity),
            indicators.IndicatorManager(conf, identity),
            boot_device.BootDeviceManager(conf, identity),
            boot_device.DriverManager(conf, identity),
            validation.ValidationManager(conf, identity),
            console.ConsoleManager(conf, identity),
            vendor_passthru.VendorManager(conf, identity, pool),
            vifs.VifManager(conf, identity),
            ramdisk.RamdiskManager(conf, identity, pool),
            boot_mode.BootModeManager(conf, identity, pool),
            vmedia.VmediaManager(conf, identity, pool),
            allocations.AllocationManager(conf, identity, pool),
            traits.TraitsManager(conf, identity),
        ]

    def start(self) -> None:
        """Load drivers, register, resume own nodes, serve."""
        context = lite_context.get_admin_context()
        stopping.reset(self.conf)
        self.hardware_types = load_enabled_drivers(self.conf)
        self.pool = workers.WorkerPool(self.conf.conductor.workers_pool_size)
        self.periodics = conductor_periodics.ConductorPeriodics(
            self.conf, self.identity, self.pool, self.hardware_types
        )
        # Refuses (ConductorHostInUse) while a live process holds the
        # name; from here on the previous process's writes are refused.
        self.periodics.register()
        LOG.info('Conductor %s registered (%s)', self.identity, this_process())
        # Outside the Service: it must outlive the RPC server and the
        # other periodic tasks when the conductor stops.
        self.heartbeat_task = lite_service.PeriodicTask(
            f'ironic-conductor-heartbeat-{self.host}',
            self._heartbeat,
            self.conf.conductor.heartbeat_interval,
        )
        self.heartbeat_task.start()
        self.periodics.release_own_locks(context)
        self.service = lite_service.Service(
            self.conf,
            self.name,
            messaging.Target(topic=rpcapi.TOPIC, server=self.host),
            self._endpoints(),
            periodic_tasks=self._periodic_tasks(self.periodics),
            serializer=rpc.get_serializer(),
        )
        self.service.start()
        # After the RPC server: a resumed flow may need nothing from it,
        # but the API can reach the conductor as soon as it registered.
        resumed = self.periodics.resume_orphans(context)
        resumed += self.periodics.resume_allocations(context, include_own=True)
        if resumed:
            LOG.info(
                'Conductor %(host)s resumed %(count)d node(s)',
                {'host': self.host, 'count': resumed},
            )

    def stop(self, unregister: bool = True) -> None:
        """Refuse new work, leave the ring, stop serving, wait for
        running flows (a cleaning stops before its next step) while
        still heartbeating, then stop heartbeating and go offline.

        ``unregister=False`` stops the heartbeat first and leaves the
        conductor row online (its heartbeat ages until others consider
        it dead): tests use it to play a conductor that died.
        """
        # First: BMC retries end now, and a cleaning in progress stops
        # before its next step.
        stopping.request(self.conf)
        if self.pool is not None:
            self.pool.stop_accepting()
        if unregister:
            self._stopping = True
            self._leave_ring()
        elif self.heartbeat_task is not None:
            self.heartbeat_task.stop()
        if self.service is not None:
            self.service.stop()
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        if self.heartbeat_task is not None:
            self.heartbeat_task.stop()
        if unregister and not self.replaced:
            try:
                db_conductors.unregister(
                    lite_context.get_admin_context(), self.identity
                )
            except exception.ConductorNotFound:
                LOG.warning('Conductor %s was not registered', self.host)
            except exception.ConductorReplaced as exc:
                LOG.warning('%s', exc)
        # (the agents downloading from it fail their deployments)
        image_server.stop_shared(self.conf)
        LOG.info(
            'Conductor %(host)s stopped its workers%(gone)s',
            {
                'host': self.host,
                'gone': ' and went offline' if unregister else '',
            },
        )

    def _leave_ring(self) -> None:
        """Heartbeat as offline now, not at the next beat."""
        try:
            self._heartbeat()
        except Exception:
            LOG.exception(
                'Conductor %s could not record that it stops; '
                'it leaves the ring at its next heartbeat',
                self.host,
            )

    def __repr__(self) -> str:
        return f'<ConductorService {self.host}>'


def conductor_service(
    conf: cfg.ConfigOpts, on_replaced: Callable[[], None] | None = None
) -> ConductorService:
    """The conductor of ``[DEFAULT]host``, as a Launcher runnable;
    ``on_replaced``: what to do when another process took the host name
    over (stop the process)."""
    return ConductorService(conf, on_replaced)
