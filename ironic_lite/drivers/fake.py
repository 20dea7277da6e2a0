"""The fake interfaces: no hardware, real-looking state and clean steps.

The fake power interface keeps the power state in ``node.power_state``;
the clean steps do nothing but note their name in
``node.driver_internal_info['fake_steps_run']``, so that tests can see
which steps ran and in which order. ``[fake]`` options add delays.

Clean steps (interface.step: priority):

- management.verify_properties: 80
- deploy.erase_devices_metadata: 99
- deploy.erase_devices: 0 (manual), args ``passes``
- deploy.wait_a_bit: 0 (manual), asynchronous, abortable, args
  ``seconds``: returns ``clean wait``, and is finished once
  ``driver_internal_info['clean_wait_until']`` (a UNIX time) has passed
- deploy.fail_step: 0 (manual), always fails, args ``message``
"""

import time
from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.drivers import base

LOG = logging.getLogger(__name__)

STEPS_RUN_KEY = 'fake_steps_run'
WAIT_UNTIL_KEY = 'clean_wait_until'
BOOT_DEVICE_KEY = 'fake_boot_device'
_NUMERIC_PROPERTIES = ('cpus', 'memory_mb', 'local_gb')


def _note_step(task: base.TaskLike, name: str) -> None:
    info = task.node.driver_internal_info
    info[STEPS_RUN_KEY] = [*info.get(STEPS_RUN_KEY, []), name]


def _is_positive_integer(value: Any) -> bool:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return (isinstance(value, int) and not isinstance(value, bool)
            and value > 0)


class FakePower(base.PowerInterface):
    """Power state kept in the node record, after ``[fake]power_delay``."""

    def get_power_state(self, task: base.TaskLike) -> str:
        return task.node.power_state or states.POWER_OFF

    def set_power_state(self, task: base.TaskLike, power_state: str,
                        timeout: int | None = None) -> None:
        if power_state not in states.POWER_STATES:
            raise exception.InvalidParameterValue(
                err=f'Unsupported power state {power_state!r}; '
                f'supported: {", ".join(sorted(states.POWER_STATES))}')
        time.sleep(self.conf.fake.power_delay)
        task.node.power_state = power_state
        LOG.debug('Fake power: node %s is now %s', task.node.uuid,
                  power_state)

    def reboot(self, task: base.TaskLike, timeout: int | None = None) -> None:
        self.set_power_state(task, states.POWER_ON, timeout)


class FakeManagement(base.ManagementInterface):
    """Boot device kept in ``driver_internal_info``."""

    def get_boot_device(self, task: base.TaskLike) -> dict[str, Any]:
        saved = task.node.driver_internal_info.get(BOOT_DEVICE_KEY)
        return dict(saved or {'boot_device': None, 'persistent': None})

    def set_boot_device(self, task: base.TaskLike, device: str,
                        persistent: bool = False) -> None:
        task.node.driver_internal_info[BOOT_DEVICE_KEY] = {
            'boot_device': device, 'persistent': persistent}

    @base.clean_step(priority=80)
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
                    f'not {value!r}')
        _note_step(task, 'verify_properties')


class FakeDeploy(base.DeployInterface):
    """Deploys nothing; offers synchronous, asynchronous and failing
    clean steps."""

    def deploy(self, task: base.TaskLike) -> str | None:
        time.sleep(self.conf.fake.step_delay)
        return None

    def tear_down(self, task: base.TaskLike) -> None:
        time.sleep(self.conf.fake.step_delay)

    @base.clean_step(priority=99)
    def erase_devices_metadata(self, task: base.TaskLike) -> None:
        """Pretend to wipe partition tables and file system signatures."""
        time.sleep(self.conf.fake.step_delay)
        _note_step(task, 'erase_devices_metadata')

    @base.clean_step(priority=0, argsinfo={
        'passes': {'description': 'How many times to overwrite every '
                   'disk (an integer >= 1, default 1).',
                   'required': False}})
    def erase_devices(self, task: base.TaskLike, passes: Any = 1) -> None:
        """Pretend to overwrite every disk ``passes`` times."""
        if isinstance(passes, bool) or not isinstance(passes, int) \
                or passes < 1:
            raise exception.InvalidParameterValue(
                err=f'passes must be an integer >= 1, not {passes!r}')
        time.sleep(self.conf.fake.step_delay * passes)
        _note_step(task, 'erase_devices')

    @base.clean_step(priority=0, abortable=True, argsinfo={
        'seconds': {'description': 'How long the step runs after it '
                    'returns (a number >= 0, default 1).',
                    'required': False}})
    def wait_a_bit(self, task: base.TaskLike, seconds: Any = 1) -> str:
        """An asynchronous step: finished ``seconds`` after it started."""
        if isinstance(seconds, bool) \
                or not isinstance(seconds, (int, float)) or seconds < 0:
            raise exception.InvalidParameterValue(
                err=f'seconds must be a number >= 0, not {seconds!r}')
        task.node.driver_internal_info[WAIT_UNTIL_KEY] = (
            time.time() + seconds)
        return states.CLEANWAIT

    @base.clean_step(priority=0, argsinfo={
        'message': {'description': 'The failure message.',
                    'required': False}})
    def fail_step(self, task: base.TaskLike,
                  message: str = 'fake failure requested') -> None:
        """Always fails: exercises the handling of failed cleaning."""
        raise exception.NodeCleaningFailure(
            node=task.node.uuid, reason=message)

    def poll_clean_step(self, task: base.TaskLike) -> bool:
        info = task.node.driver_internal_info
        if WAIT_UNTIL_KEY not in info:
            raise exception.NodeCleaningFailure(
                node=task.node.uuid,
                reason=f'no asynchronous fake step is running (no '
                f'{WAIT_UNTIL_KEY} in driver_internal_info)')
        if time.time() < info[WAIT_UNTIL_KEY]:
            return False
        del info[WAIT_UNTIL_KEY]
        _note_step(task, 'wait_a_bit')
        return True

    def abort_clean_step(self, task: base.TaskLike) -> None:
        task.node.driver_internal_info.pop(WAIT_UNTIL_KEY, None)
