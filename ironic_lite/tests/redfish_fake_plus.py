"""``sushy-emulator`` whose fake systems also have a BIOS, firmware
versions, processors and memory.

sushy-tools' fake systems driver (``--fake``) implements power, boot
device/mode, secure boot, boot images and NICs only; the BIOS, the
firmware versions that ``UpdateService.SimpleUpdate`` bumps, and the
processor/memory inventory raise ``NotSupportedError`` there (only its
libvirt driver has them). This launcher runs the unmodified emulator
(``sushy_tools.emulator.main.main``: every route, template and sushy
exchange is the real one) with a subclass of that fake driver adding
those five features, the way a BMC behaves:

- BIOS attributes written through ``BIOS/Settings`` (or a factory
  reset) are pending, applied when the system next powers on or
  restarts (as on real hardware, and as upstream's redfish bios
  interface expects: it reboots the node, then checks);
- ``SimpleUpdate`` of the system bumps its BiosVersion (the emulator's
  own logic; this driver only stores the versions);
- processors, total CPUs and memory come from the system's
  ``processors`` / ``memory_gib`` keys in SUSHY_EMULATOR_FAKE_SYSTEMS;
- power changes take ``STACKLITE_POWER_DELAY`` (the all-in-one's
  emulated machines' driver, :mod:`stacklite.redfish_bmc`).

Run: ``python -m ironic_lite.tests.redfish_fake_plus --config F --port P``.
"""

import copy
from typing import Any

from sushy_tools.emulator import main as emulator_main
from sushy_tools.emulator.resources.systems import fakedriver

from stacklite import redfish_bmc

DEFAULT_BIOS = {
    'BootMode': 'Uefi',
    'EmbeddedSata': 'Raid',
    'NicBoot1': 'NetworkBoot',
    'NumCores': '10',
    'ProcTurboMode': 'Enabled',
    'QuietBoot': 'true',
}
DEFAULT_VERSIONS = {'BiosVersion': '1.0.0'}


class FakePlusDriver(redfish_bmc.DelayedPowerDriver):
    """The fake driver, plus BIOS, versions, processors and memory."""

    def _update_if_needed(self, system: dict[str, Any]) -> dict[str, Any]:
        pending = system.get('pending_power')
        system = super()._update_if_needed(system)
        powered_on = (
            pending
            and not system.get('pending_power')
            and system['power_state'] == 'On'
        )
        if powered_on and system.get('bios_pending') is not None:
            self._update(
                system, bios=system['bios_pending'], bios_pending=None
            )
        return system

    def get_bios(self, identity: str) -> dict[str, Any]:
        return dict(self._get(identity).get('bios') or DEFAULT_BIOS)

    def set_bios(self, identity: str, attributes: dict[str, Any]) -> None:
        system = self._get(identity)
        pending = dict(
            system.get('bios_pending') or system.get('bios') or DEFAULT_BIOS
        )
        pending.update(attributes)
        self._update(system, bios_pending=pending)

    def reset_bios(self, identity: str) -> None:
        self._update(identity, bios_pending=dict(DEFAULT_BIOS))

    def get_versions(self, identity: str) -> dict[str, Any]:
        return dict(self._get(identity).get('versions') or DEFAULT_VERSIONS)

    def set_versions(
        self, identity: str, firmware_versions: dict[str, Any]
    ) -> None:
        self._update(identity, versions=dict(firmware_versions))

    def reset_versions(self, identity: str) -> None:
        self._update(identity, versions=dict(DEFAULT_VERSIONS))

    def get_processors(self, identity: str) -> list[dict[str, Any]]:
        return copy.deepcopy(self._get(identity).get('processors') or [])

    def get_total_cpus(self, identity: str) -> int:
        return sum(
            int(p.get('threads', 1)) for p in self.get_processors(identity)
        )

    def get_total_memory(self, identity: str) -> int:
        return int(self._get(identity).get('memory_gib', 0))


def main() -> int:
    fakedriver.FakeDriver = FakePlusDriver  # type: ignore[misc]
    return int(emulator_main.main() or 0)


if __name__ == '__main__':
    raise SystemExit(main())
