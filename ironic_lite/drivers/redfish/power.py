"""Power through Redfish: the ComputerSystem's ``Reset`` action, then
the power state polled until the BMC reports the target (a BMC applies
a reset asynchronously), for at most [redfish]power_state_change_timeout
seconds."""

import time
from typing import Any

from oslo_log import log as logging
import sushy

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.common import stopping
from ironic_lite.drivers import base
from ironic_lite.drivers.redfish import utils

LOG = logging.getLogger(__name__)

#: Redfish PowerState -> ironic's (a transition counts as its end).
POWER_STATES = {
    sushy.POWER_STATE_ON: states.POWER_ON,
    sushy.POWER_STATE_POWERING_ON: states.POWER_ON,
    sushy.POWER_STATE_OFF: states.POWER_OFF,
    sushy.POWER_STATE_POWERING_OFF: states.POWER_OFF,
}
#: ironic's power target -> the Reset type that reaches it.
RESETS = {
    states.POWER_ON: sushy.RESET_ON,
    states.POWER_OFF: sushy.RESET_FORCE_OFF,
    states.SOFT_POWER_OFF: sushy.RESET_GRACEFUL_SHUTDOWN,
    states.SOFT_REBOOT: sushy.RESET_GRACEFUL_RESTART,
    states.REBOOT: sushy.RESET_FORCE_RESTART,
}


def _state(system: Any) -> str:
    system.refresh(force=True)
    try:
        return POWER_STATES[system.power_state]
    except KeyError:
        raise utils.RedfishError(
            error=f'the BMC reports power state {system.power_state!r}, '
            f'which is not one of {sorted(map(str, POWER_STATES))}'
        ) from None


class RedfishPower(base.PowerInterface):
    """``power on``, ``power off``, ``rebooting`` and the soft targets,
    through the system's Reset action."""

    def get_properties(self) -> dict[str, str]:
        return dict(utils.COMMON_PROPERTIES)

    def validate(self, task: base.TaskLike) -> None:
        utils.parse_driver_info(task.node)

    def get_power_state(self, task: base.TaskLike) -> str:
        return utils.call(
            self.conf, task.node, _state, 'Reading the power state'
        )

    def _reset(
        self, task: base.TaskLike, target: str, reset: Any, timeout: int | None
    ) -> None:
        node = task.node
        utils.call(
            self.conf,
            node,
            lambda system: system.reset_system(reset),
            f'Setting power state to {target}',
        )
        LOG.info(
            'Redfish reset %(reset)s sent to node %(node)s',
            {'reset': reset.value, 'node': node.uuid},
        )
        self._wait(task, states.POWER_TARGET_STATES[target], timeout)

    def _wait(
        self, task: base.TaskLike, wanted: str, timeout: int | None
    ) -> None:
        """Poll the system (one request per poll, on one session) until
        it reports ``wanted``."""
        options = self.conf.redfish
        limit = timeout or options.power_state_change_timeout
        deadline = time.monotonic() + limit

        def poll(system: Any) -> None:
            while True:
                current = _state(system)
                if current == wanted:
                    return
                if time.monotonic() >= deadline:
                    raise exception.PowerStateFailure(
                        node=task.node.uuid,
                        pstate=wanted,
                        timeout=limit,
                        current=current,
                    )
                stopping.wait(self.conf, options.power_state_poll_interval)

        utils.call(self.conf, task.node, poll, f'Waiting for {wanted}')

    def set_power_state(
        self, task: base.TaskLike, power_state: str, timeout: int | None = None
    ) -> None:
        if power_state not in RESETS or power_state == states.REBOOT:
            raise exception.InvalidParameterValue(
                err=f'Unsupported target_state: {power_state}'
            )
        if power_state == states.SOFT_REBOOT:
            # A graceful restart of a machine that is off does nothing.
            if self.get_power_state(task) == states.POWER_OFF:
                power_state = states.POWER_ON
        self._reset(task, power_state, RESETS[power_state], timeout)

    def reboot(self, task: base.TaskLike, timeout: int | None = None) -> None:
        """A forced restart, or power on for a machine that is off."""
        if self.get_power_state(task) == states.POWER_OFF:
            self._reset(
                task, states.POWER_ON, RESETS[states.POWER_ON], timeout
            )
        else:
            self._reset(task, states.REBOOT, RESETS[states.REBOOT], timeout)

    def get_supported_power_states(self, task: base.TaskLike) -> list[str]:
        return [
            states.POWER_ON,
            states.POWER_OFF,
            states.REBOOT,
            states.SOFT_REBOOT,
            states.SOFT_POWER_OFF,
        ]
