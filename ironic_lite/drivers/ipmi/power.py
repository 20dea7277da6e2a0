"""Power through IPMI chassis control, then the chassis status polled
until it reports the target, for at most [ipmi]power_state_change_timeout
seconds ([ipmi]soft_power_off_timeout for a soft power off), on the
session that sent the command."""

import time
from typing import Any

from oslo_log import log as logging
from pyghmi import exceptions as pyghmi_exc

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.common import stopping
from ironic_lite.drivers import base
from ironic_lite.drivers.ipmi import utils

LOG = logging.getLogger(__name__)

#: pyghmi's chassis power state -> ironic's.
POWER_STATES = {'on': states.POWER_ON, 'off': states.POWER_OFF}
#: pyghmi's chassis control -> the state it ends in.
CONTROLS = {
    'on': states.POWER_ON,
    'off': states.POWER_OFF,
    'shutdown': states.POWER_OFF,
}


def read_state(command: Any) -> str:
    state = command.get_power()['powerstate']
    try:
        return POWER_STATES[state]
    except KeyError:
        raise pyghmi_exc.IpmiException(
            f'the BMC reports power state {state!r}'
        ) from None


class IPMIPower(base.PowerInterface):
    """``power on``, ``power off``, ``rebooting`` (off, then on, as
    upstream), ``soft power off`` (an ACPI shutdown) and ``soft
    rebooting`` (a soft power off, then on)."""

    def get_properties(self) -> dict[str, str]:
        return dict(utils.COMMON_PROPERTIES)

    def validate(self, task: base.TaskLike) -> None:
        # As upstream, the BMC is not touched: validate runs often and
        # BMCs are fragile.
        utils.parse_driver_info(task.node)

    def get_power_state(self, task: base.TaskLike) -> str:
        return utils.call(
            self.conf, task.node, read_state, 'Reading the power state'
        )

    def _control(
        self, task: base.TaskLike, control: str, timeout: int | None
    ) -> None:
        """Send chassis control ``control`` and wait for its state."""
        options = self.conf.ipmi
        default = (
            options.soft_power_off_timeout
            if control == 'shutdown'
            else options.power_state_change_timeout
        )
        limit = timeout or default
        wanted = CONTROLS[control]
        node = task.node

        def send_and_wait(command: Any) -> None:
            command.set_power(control, wait=False)
            LOG.info(
                'IPMI power %(control)s sent to node %(node)s',
                {'control': control, 'node': node.uuid},
            )
            deadline = time.monotonic() + limit
            while True:
                current = read_state(command)
                if current == wanted:
                    return
                if time.monotonic() >= deadline:
                    raise exception.PowerStateFailure(
                        node=node.uuid,
                        pstate=wanted,
                        timeout=limit,
                        current=current,
                    )
                stopping.wait(self.conf, options.power_state_poll_interval)

        utils.call(
            self.conf,
            node,
            send_and_wait,
            f'Setting power state to {wanted} ({control})',
            extra_time=limit,
        )

    def set_power_state(
        self, task: base.TaskLike, power_state: str, timeout: int | None = None
    ) -> None:
        if power_state == states.POWER_ON:
            self._control(task, 'on', timeout)
        elif power_state == states.POWER_OFF:
            self._control(task, 'off', timeout)
        elif power_state == states.SOFT_POWER_OFF:
            self._control(task, 'shutdown', timeout)
        elif power_state == states.SOFT_REBOOT:
            if getattr(task.node, 'disable_power_off', False):
                raise exception.InvalidParameterValue(
                    err=f'Node {task.node.uuid} has disable_power_off set: '
                    'IPMI has no soft reboot without a power off.'
                )
            # A machine that is off cannot shut down: it is powered on.
            if self.get_power_state(task) != states.POWER_OFF:
                self._control(task, 'shutdown', timeout)
            self._control(task, 'on', timeout)
        else:
            raise exception.InvalidParameterValue(
                err=f'set_power_state called with invalid power state '
                f'{power_state}.'
            )

    def reboot(self, task: base.TaskLike, timeout: int | None = None) -> None:
        """Power off (unless off already), then on: upstream's cycle,
        which some BMCs need rather than a reset."""
        if self.get_power_state(task) != states.POWER_OFF:
            self._control(task, 'off', timeout)
        self._control(task, 'on', timeout)

    def get_supported_power_states(self, task: base.TaskLike) -> list[str]:
        return [
            states.POWER_ON,
            states.POWER_OFF,
            states.REBOOT,
            states.SOFT_REBOOT,
            states.SOFT_POWER_OFF,
        ]
