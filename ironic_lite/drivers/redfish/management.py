"""Management through Redfish: the boot source override (device, once
or persistent), the boot mode and secure boot, the NMI (the system's
Reset action with ``Nmi``), the indicator LEDs and virtual media."""

from typing import Any
from typing import cast

from oslo_log import log as logging
import sushy

from ironic_lite import exception
from ironic_lite.drivers import base
from ironic_lite.drivers.redfish import indicators
from ironic_lite.drivers.redfish import utils
from ironic_lite.drivers.redfish import vmedia

LOG = logging.getLogger(__name__)

#: ironic's boot device -> Redfish BootSourceOverrideTarget.
BOOT_DEVICES = {
    'pxe': sushy.BOOT_SOURCE_TARGET_PXE,
    'disk': sushy.BOOT_SOURCE_TARGET_HDD,
    'cdrom': sushy.BOOT_SOURCE_TARGET_CD,
    'bios': sushy.BOOT_SOURCE_TARGET_BIOS_SETUP,
    'uefi-http': sushy.BOOT_SOURCE_TARGET_UEFI_HTTP,
    'floppy': sushy.BOOT_SOURCE_TARGET_FLOPPY,
}
_DEVICE_OF = {target: device for device, target in BOOT_DEVICES.items()}
BOOT_MODES = {
    'uefi': sushy.BOOT_SOURCE_MODE_UEFI,
    'bios': sushy.BOOT_SOURCE_MODE_BIOS,
}
_MODE_OF = {mode: name for name, mode in BOOT_MODES.items()}


class RedfishManagement(base.ManagementInterface):
    """Boot device, boot mode and NMI of a Redfish system."""

    def get_properties(self) -> dict[str, str]:
        return dict(utils.COMMON_PROPERTIES)

    def validate(self, task: base.TaskLike) -> None:
        utils.parse_driver_info(task.node)

    def _call(self, task: base.TaskLike, action: Any, what: str) -> Any:
        return utils.call(self.conf, task.node, action, what)

    def get_supported_boot_devices(self, task: base.TaskLike) -> list[str]:
        """The devices the system allows, in ironic's names."""

        def allowed_targets(system: Any) -> Any:
            return system.get_allowed_system_boot_source_values()

        allowed = self._call(
            task, allowed_targets, 'Reading the allowed boot devices'
        )
        return sorted(
            _DEVICE_OF[target] for target in allowed if target in _DEVICE_OF
        )

    def get_boot_device(self, task: base.TaskLike) -> dict[str, Any]:
        def read(system: Any) -> dict[str, Any]:
            system.refresh(force=True)
            boot = system.boot
            return {
                'boot_device': _DEVICE_OF.get(boot.target),
                'persistent': (
                    boot.enabled == sushy.BOOT_SOURCE_ENABLED_CONTINUOUS
                ),
            }

        return cast(
            'dict[str, Any]', self._call(task, read, 'Reading the boot device')
        )

    def set_boot_device(
        self, task: base.TaskLike, device: str, persistent: bool = False
    ) -> None:
        if device not in BOOT_DEVICES:
            raise exception.InvalidParameterValue(
                err=f'Invalid boot device {device} specified.'
            )
        supported = self.get_supported_boot_devices(task)
        if device not in supported:
            raise exception.InvalidParameterValue(
                err=f'Invalid boot device {device} specified: node '
                f'{task.node.uuid} supports {", ".join(supported)}.'
            )
        enabled = (
            sushy.BOOT_SOURCE_ENABLED_CONTINUOUS
            if persistent
            else sushy.BOOT_SOURCE_ENABLED_ONCE
        )
        self._call(
            task,
            lambda system: system.set_system_boot_options(
                BOOT_DEVICES[device], enabled=enabled
            ),
            f'Setting boot device to {device}',
        )
        LOG.info(
            'Redfish boot device of node %(node)s set to %(device)s (%(how)s)',
            {
                'node': task.node.uuid,
                'device': device,
                'how': 'persistent' if persistent else 'next boot',
            },
        )

    def get_boot_mode(self, task: base.TaskLike) -> str | None:
        def read(system: Any) -> str | None:
            system.refresh(force=True)
            return _MODE_OF.get(system.boot.mode)

        return cast(
            'str | None', self._call(task, read, 'Reading the boot mode')
        )

    def set_boot_mode(self, task: base.TaskLike, mode: str) -> None:
        if mode not in BOOT_MODES:
            raise exception.InvalidParameterValue(
                err=f'Invalid boot mode {mode} specified.'
            )
        self._call(
            task,
            lambda system: system.set_system_boot_options(
                mode=BOOT_MODES[mode]
            ),
            f'Setting boot mode to {mode}',
        )

    def inject_nmi(self, task: base.TaskLike) -> None:
        self._call(
            task,
            lambda system: system.reset_system(sushy.RESET_NMI),
            'Injecting an NMI',
        )
        LOG.info('Redfish NMI injected into node %s', task.node.uuid)

    # Secure boot (the system's SecureBoot resource), as upstream's.

    def get_secure_boot_state(self, task: base.TaskLike) -> bool | None:
        def read(system: Any) -> bool | None:
            try:
                secure_boot = system.secure_boot
            except sushy.exceptions.MissingAttributeError:
                raise exception.UnsupportedDriverExtension(
                    driver=task.node.driver, extension='get_secure_boot_state'
                ) from None
            secure_boot.refresh(force=True)
            return secure_boot.enabled  # type: ignore[no-any-return]

        return cast(
            'bool | None',
            self._call(task, read, 'Reading the secure boot state'),
        )

    def set_secure_boot_state(self, task: base.TaskLike, state: bool) -> None:
        node = task.node

        def change(system: Any) -> None:
            try:
                secure_boot = system.secure_boot
            except sushy.exceptions.MissingAttributeError:
                raise exception.UnsupportedDriverExtension(
                    driver=node.driver, extension='set_secure_boot_state'
                ) from None
            if secure_boot.enabled == state:
                return
            if system.boot.mode == sushy.BOOT_SOURCE_MODE_BIOS:
                raise utils.RedfishError(
                    error='Configuring secure boot requires UEFI for node '
                    f'{node.uuid}'
                )
            secure_boot.set_enabled(state)

        self._call(task, change, f'Setting secure boot to {state}')
        LOG.info(
            'Secure boot of node %(node)s set to %(state)s',
            {'node': node.uuid, 'state': state},
        )

    # Indicators (upstream's components: system, chassis, disk).

    def get_supported_indicators(
        self, task: base.TaskLike
    ) -> dict[str, dict[str, Any]]:
        return cast(
            'dict[str, dict[str, Any]]',
            self._call(
                task,
                lambda system: indicators.supported(system, task.node.uuid),
                'Reading the indicators',
            ),
        )

    def get_indicator_state(
        self, task: base.TaskLike, component: str, indicator: str
    ) -> str:
        return cast(
            str,
            self._call(
                task,
                lambda system: indicators.get_state(
                    system, task.node.uuid, component, indicator
                ),
                f'Reading indicator {indicator}@{component}',
            ),
        )

    def set_indicator_state(
        self, task: base.TaskLike, component: str, indicator: str, state: str
    ) -> None:
        self._call(
            task,
            lambda system: indicators.set_state(
                system, task.node.uuid, component, indicator, state
            ),
            f'Setting indicator {indicator}@{component} to {state}',
        )

    # Virtual media (API 1.89, 1.93).

    def get_virtual_media(self, task: base.TaskLike) -> Any:
        return self._call(task, vmedia.describe, 'Reading virtual media')

    def attach_virtual_media(
        self, task: base.TaskLike, device_type: str, image_url: str
    ) -> None:
        if device_type not in vmedia.MEDIA_TYPES:
            raise exception.InvalidParameterValue(
                err=f'Invalid virtual media device type {device_type}'
            )
        self._call(
            task,
            lambda system: vmedia.insert(
                system, task.node.uuid, device_type, image_url
            ),
            f'Attaching virtual media {device_type}',
        )

    def detach_virtual_media(
        self, task: base.TaskLike, device_types: list[str] | None = None
    ) -> None:
        kinds: list[str | None] = (
            list(device_types) if device_types else [None]
        )

        def eject(system: Any) -> None:
            for kind in kinds:
                vmedia.eject(system, task.node.uuid, kind)

        self._call(task, eject, 'Detaching virtual media')
