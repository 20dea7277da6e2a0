"""The fake interfaces: no hardware, real-looking state and clean steps.

The fake power interface keeps the power state in ``node.power_state``;
the clean steps do nothing but note their name in
``node.driver_internal_info['fake_steps_run']`` (the last
:data:`STEPS_RUN_LIMIT` of them), so that tests can see which steps ran
and in which order, and, with ``[fake]run_log``, record each run in a
file (:mod:`fake_run_log`). ``[fake]`` options add delays. The
synchronous steps that take time call ``task.checkpoint()`` every
:data:`fake_run_log.SLICE` seconds, so a conductor that lost the node
stops them at once, and an abort stops the abortable ones.

Clean steps (interface.step: priority):

- management.verify_properties: 80, idempotent
- deploy.erase_devices_metadata: 99, idempotent
- deploy.erase_devices: 0 (manual), idempotent, args ``passes``
- deploy.wait_a_bit: 0 (manual), asynchronous, abortable, idempotent,
  args ``seconds``: returns ``clean wait``, and is finished once
  ``driver_internal_info['clean_wait_until']`` (a UNIX time) has passed;
  a service step and a deploy step (priority 0: only when a request or
  a deploy template asks for it) too, returning ``service wait`` and
  ``wait call-back``
- deploy.fail_step: 0 (manual), always fails, args ``message``
- deploy.repeatable_work: 0 (manual), abortable, idempotent, args
  ``seconds`` and ``tag``: works ``seconds``
- deploy.one_shot_work: 0 (manual), not idempotent (like a firmware
  update), args ``seconds`` and ``tag``: works ``seconds``
- deploy.wait_for_gate: 0 (manual), abortable, idempotent, args
  ``gate`` and ``timeout``: runs until the file ``gate`` appears in
  ``[fake]gate_dir`` (tests hold a step that way, then release it)
"""

from pathlib import Path
import time
from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.drivers import base
from ironic_lite.drivers import fake_run_log

LOG = logging.getLogger(__name__)

STEPS_RUN_KEY = 'fake_steps_run'
#: How many step names ``fake_steps_run`` keeps (the latest).
STEPS_RUN_LIMIT = 20
WAIT_UNTIL_KEY = 'clean_wait_until'
BOOT_DEVICE_KEY = 'fake_boot_device'
_NUMERIC_PROPERTIES = ('cpus', 'memory_mb', 'local_gb')
#: Seconds of work of the work steps, at most.
MAX_WORK_SECONDS = 3600
_SECONDS = {
    'description': 'How long the step works, in seconds '
    f'(0 to {MAX_WORK_SECONDS}, default 1).',
    'required': False,
    'type': 'number',
    'minimum': 0,
    'maximum': MAX_WORK_SECONDS,
}
_TAG = {
    'description': 'A label recorded in the run log with the run.',
    'required': False,
    'type': 'string',
    'maxLength': 64,
}


def _note_step(task: base.TaskLike, name: str) -> None:
    info = task.node.driver_internal_info
    info[STEPS_RUN_KEY] = [*info.get(STEPS_RUN_KEY, []), name][
        -STEPS_RUN_LIMIT:
    ]


def _is_positive_integer(value: Any) -> bool:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


class FakePower(base.PowerInterface):
    """Power state kept in the node record, after ``[fake]power_delay``."""

    def get_power_state(self, task: base.TaskLike) -> str:
        return task.node.power_state or states.POWER_OFF

    def set_power_state(
        self, task: base.TaskLike, power_state: str, timeout: int | None = None
    ) -> None:
        """A power state, or a soft target (its end state at once: the
        fake machine's operating system always obeys ACPI)."""
        supported = states.POWER_STATES | states.SOFT_POWER_TARGETS
        if power_state not in supported:
            raise exception.InvalidParameterValue(
                err=f'Unsupported power state {power_state!r}; '
                f'supported: {", ".join(sorted(supported))}'
            )
        time.sleep(self.conf.fake.power_delay)
        power_state = states.POWER_TARGET_STATES[power_state]
        task.node.power_state = power_state
        LOG.debug('Fake power: node %s is now %s', task.node.uuid, power_state)

    def reboot(self, task: base.TaskLike, timeout: int | None = None) -> None:
        self.set_power_state(task, states.POWER_ON, timeout)

    def get_supported_power_states(self, task: base.TaskLike) -> list[str]:
        """Upstream's fake power: the soft targets too."""
        return [
            states.POWER_ON,
            states.POWER_OFF,
            states.REBOOT,
            states.SOFT_REBOOT,
            states.SOFT_POWER_OFF,
        ]


class FakeManagement(base.ManagementInterface):
    """Boot device kept in ``driver_internal_info``."""

    def get_boot_device(self, task: base.TaskLike) -> dict[str, Any]:
        saved = task.node.driver_internal_info.get(BOOT_DEVICE_KEY)
        # Until one is set, what upstream's fake says: PXE, once.
        return dict(saved or {'boot_device': 'pxe', 'persistent': False})

    def set_boot_device(
        self, task: base.TaskLike, device: str, persistent: bool = False
    ) -> None:
        if device not in self.get_supported_boot_devices(task):
            raise exception.InvalidParameterValue(
                err=f'Invalid boot device {device} specified.'
            )
        task.node.driver_internal_info[BOOT_DEVICE_KEY] = {
            'boot_device': device,
            'persistent': persistent,
        }

    def get_supported_boot_devices(self, task: base.TaskLike) -> list[str]:
        """Upstream's fake management: PXE only."""
        return ['pxe']

    def get_supported_indicators(
        self, task: base.TaskLike
    ) -> dict[str, dict[str, Any]]:
        """Upstream's fake indicators: a read-only chassis LED and a
        system LED (whose state, as upstream's, cannot be set)."""
        return {
            'chassis': {'led-0': {'readonly': True, 'states': ['off', 'on']}},
            'system': {
                'led': {'readonly': False, 'states': ['blinking', 'off', 'on']}
            },
        }

    def get_indicator_state(
        self, task: base.TaskLike, component: str, indicator: str
    ) -> str:
        indicators = self.get_supported_indicators(task)
        if component not in indicators:
            raise exception.InvalidParameterValue(
                err=f'Invalid component {component} specified.'
            )
        if indicator not in indicators[component]:
            raise exception.InvalidParameterValue(
                err=f'Invalid indicator {indicator} specified.'
            )
        return 'on'

    @base.clean_step(priority=80, idempotent=True)
    def verify_properties(self, task: base.TaskLike) -> None:
        """Check that cpus, memory_mb and local_gb, where set, are
        positive integers."""
        for name in _NUMERIC_PROPERTIES:
            value = task.node.properties.get(name)
            if value is None:
                continue
            if not _is_positive_integer(value):
                raise exception.NodeCleaningFailure(
                    node=task.node.uuid,
                    reason=f'property {name} must be a positive integer, '
                    f'not {value!r}',
                )
        _note_step(task, 'verify_properties')


class FakeDeploy(base.DeployInterface):
    """Deploys nothing; offers synchronous, asynchronous, failing and
    gated clean steps."""

    def deploy(self, task: base.TaskLike) -> str | None:
        time.sleep(self.conf.fake.step_delay)
        return None

    def tear_down(self, task: base.TaskLike) -> None:
        time.sleep(self.conf.fake.step_delay)

    def _work(
        self,
        task: base.TaskLike,
        name: str,
        seconds: float,
        tag: str | None = None,
    ) -> None:
        with fake_run_log.recorded(self.conf, task, name, tag) as run:
            run.work(seconds)
        _note_step(task, name)

    @base.clean_step(priority=99, idempotent=True)
    def erase_devices_metadata(self, task: base.TaskLike) -> None:
        """Pretend to wipe partition tables and file system signatures."""
        self._work(task, 'erase_devices_metadata', self.conf.fake.step_delay)

    @base.clean_step(
        priority=0,
        idempotent=True,
        argsinfo={
            'passes': {
                'description': 'How many times to overwrite every '
                'disk (an integer from 1 to 100, default 1).',
                'required': False,
                'type': 'integer',
                'minimum': 1,
                'maximum': 100,
            }
        },
    )
    def erase_devices(self, task: base.TaskLike, passes: int = 1) -> None:
        """Pretend to overwrite every disk ``passes`` times."""
        self._work(task, 'erase_devices', self.conf.fake.step_delay * passes)

    @base.deploy_step(
        priority=0,
        abortable=True,
        argsinfo={
            'seconds': {
                'description': 'How long the step runs after it returns (0 to '
                '86400 seconds, default 1).',
                'required': False,
                'type': 'number',
                'minimum': 0,
                'maximum': 86400,
            }
        },
    )
    @base.service_step(
        abortable=True,
        requires_ramdisk=False,
        argsinfo={
            'seconds': {
                'description': 'How long the step runs after '
                'it returns (0 to 86400 seconds, default 1).',
                'required': False,
                'type': 'number',
                'minimum': 0,
                'maximum': 86400,
            }
        },
    )
    @base.clean_step(
        priority=0,
        abortable=True,
        idempotent=True,
        argsinfo={
            'seconds': {
                'description': 'How long the step runs after it '
                'returns (0 to 86400 seconds, default 1).',
                'required': False,
                'type': 'number',
                'minimum': 0,
                'maximum': 86400,
            }
        },
    )
    def wait_a_bit(self, task: base.TaskLike, seconds: float = 1) -> str:
        """An asynchronous step: finished ``seconds`` after it started."""
        task.node.driver_internal_info[WAIT_UNTIL_KEY] = time.time() + seconds
        if task.node.provision_state == states.SERVICING:
            return states.SERVICEWAIT
        if task.node.provision_state == states.DEPLOYING:
            return states.DEPLOYWAIT
        return states.CLEANWAIT

    @base.service_step(
        requires_ramdisk=False,
        argsinfo={
            'message': {
                'description': 'The failure message.',
                'required': False,
                'type': 'string',
                'maxLength': 1024,
            }
        },
    )
    @base.clean_step(
        priority=0,
        argsinfo={
            'message': {
                'description': 'The failure message.',
                'required': False,
                'type': 'string',
                'maxLength': 1024,
            }
        },
    )
    def fail_step(
        self, task: base.TaskLike, message: str = 'fake failure requested'
    ) -> None:
        """Always fails: exercises the handling of failed cleaning."""
        raise exception.NodeCleaningFailure(
            node=task.node.uuid, reason=message
        )

    @base.service_step(
        requires_ramdisk=False, argsinfo={'seconds': _SECONDS, 'tag': _TAG}
    )
    @base.clean_step(
        priority=0,
        abortable=True,
        idempotent=True,
        argsinfo={'seconds': _SECONDS, 'tag': _TAG},
    )
    def repeatable_work(
        self, task: base.TaskLike, seconds: float = 1, tag: str | None = None
    ) -> None:
        """Work that is safe to run again after an interruption."""
        self._work(task, 'repeatable_work', seconds, tag)

    @base.service_step(
        requires_ramdisk=False, argsinfo={'seconds': _SECONDS, 'tag': _TAG}
    )
    @base.clean_step(priority=0, argsinfo={'seconds': _SECONDS, 'tag': _TAG})
    def one_shot_work(
        self, task: base.TaskLike, seconds: float = 1, tag: str | None = None
    ) -> None:
        """Work that must never run twice (a firmware update)."""
        self._work(task, 'one_shot_work', seconds, tag)

    @base.clean_step(
        priority=0,
        abortable=True,
        idempotent=True,
        argsinfo={
            'gate': {
                'description': 'The name of the file in [fake]gate_dir '
                'that ends the step.',
                'required': True,
                'type': 'string',
                'pattern': r'^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$',
            },
            'timeout': {
                'description': 'Seconds to wait for the gate before '
                'the step fails (default 600).',
                'required': False,
                'type': 'number',
                'minimum': 0,
                'maximum': 86400,
            },
        },
    )
    def wait_for_gate(
        self, task: base.TaskLike, gate: str, timeout: float = 600
    ) -> None:
        """Run until a test opens the gate (creates the file)."""
        if not self.conf.fake.gate_dir:
            raise exception.NodeCleaningFailure(
                node=task.node.uuid, reason='[fake]gate_dir is not set'
            )
        path = Path(self.conf.fake.gate_dir) / gate
        deadline = time.monotonic() + timeout
        with fake_run_log.recorded(
            self.conf, task, 'wait_for_gate', gate
        ) as run:
            while not path.exists():
                if time.monotonic() > deadline:
                    raise exception.NodeCleaningFailure(
                        node=task.node.uuid,
                        reason=f'the gate {gate} did '
                        f'not open within {timeout} seconds',
                    )
                run.work(fake_run_log.SLICE)
        _note_step(task, 'wait_for_gate')

    def poll_clean_step(self, task: base.TaskLike) -> bool:
        info = task.node.driver_internal_info
        if WAIT_UNTIL_KEY not in info:
            raise exception.NodeCleaningFailure(
                node=task.node.uuid,
                reason=f'no asynchronous fake step is running (no '
                f'{WAIT_UNTIL_KEY} in driver_internal_info)',
            )
        if time.time() < info[WAIT_UNTIL_KEY]:
            return False
        del info[WAIT_UNTIL_KEY]
        _note_step(task, 'wait_a_bit')
        return True

    def abort_clean_step(self, task: base.TaskLike) -> None:
        task.node.driver_internal_info.pop(WAIT_UNTIL_KEY, None)

    # wait_a_bit is a service and a deploy step too: polled and aborted
    # the same way.
    poll_service_step = poll_clean_step
    abort_service_step = abort_clean_step
    poll_deploy_step = poll_clean_step
    abort_deploy_step = abort_clean_step
