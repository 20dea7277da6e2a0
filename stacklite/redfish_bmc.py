"""The Redfish BMC of the emulated machines: sushy-tools' emulator, run
unmodified (every route, template and sushy exchange is the real one)
with its fake systems driver, whose power changes take effect after a
random delay of ``STACKLITE_POWER_DELAY = (low, high)`` seconds (its
config file; :data:`POWER_DELAY` by default) instead of the stock 1 to
11 s: not at once, as a real machine, so that the conductor's polling
of the power state is exercised, but without minutes of waiting in a
demonstration that powers machines on and off a dozen times.

Run: ``python -m stacklite.redfish_bmc --config F --port P`` (the
emulator's own options).
"""

import random
import time
from typing import Any

from sushy_tools.emulator import main as emulator_main
from sushy_tools.emulator.resources.systems import fakedriver

#: Seconds (a random value in the range) a power change takes.
POWER_DELAY = (1.0, 3.0)


class DelayedPowerDriver(fakedriver.FakeDriver):
    """The fake driver with a configurable power delay."""

    def set_power_state(self, identity: str, state: str) -> None:
        super().set_power_state(identity, state)
        low, high = self._config.get('STACKLITE_POWER_DELAY', POWER_DELAY)
        system = self._get(identity)
        pending = system.get('pending_power')
        if pending:
            self._update(
                system,
                pending_power={
                    **pending,
                    'apply_time': time.time() + random.uniform(low, high),
                },
            )


def main() -> int:
    fakedriver.FakeDriver = DelayedPowerDriver
    result: Any = emulator_main.main()
    return int(result or 0)


if __name__ == '__main__':
    raise SystemExit(main())
