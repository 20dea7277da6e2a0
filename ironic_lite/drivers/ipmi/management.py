"""Management through IPMI: the boot device (Set/Get System Boot
Options, once or persistent, UEFI when the node boots UEFI), the NMI
(chassis control "pulse diagnostic interrupt") and the sensors (the
BMC's SDR and sensor readings)."""

from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.drivers import base
from ironic_lite.drivers.ipmi import utils

LOG = logging.getLogger(__name__)

#: ironic's boot device -> pyghmi's (upstream's five IPMI devices).
BOOT_DEVICES = {
    'pxe': 'network',
    'disk': 'hd',
    'cdrom': 'optical',
    'bios': 'setup',
    'safe': 'safe',
}
_DEVICE_OF = {pyghmi: ironic for ironic, pyghmi in BOOT_DEVICES.items()}


def _sensor(reading: Any) -> dict[str, Any]:
    value = reading.value
    shown = 'N/A' if value is None else f'{value} {reading.units}'.strip()
    return {
        'Sensor ID': reading.name,
        'Sensor Reading': shown,
        'Health': reading.health,
        'States': list(reading.states or []),
    }


class IPMIManagement(base.ManagementInterface):
    """Boot device, NMI and sensors of an IPMI BMC."""

    def get_properties(self) -> dict[str, str]:
        return dict(utils.COMMON_PROPERTIES)

    def validate(self, task: base.TaskLike) -> None:
        utils.parse_driver_info(task.node)

    def get_supported_boot_devices(self, task: base.TaskLike) -> list[str]:
        return list(BOOT_DEVICES)

    def set_boot_device(
        self, task: base.TaskLike, device: str, persistent: bool = False
    ) -> None:
        if device not in BOOT_DEVICES:
            raise exception.InvalidParameterValue(
                err=f'Invalid boot device {device} specified: node '
                f'{task.node.uuid} supports {", ".join(BOOT_DEVICES)}.'
            )
        uefi = getattr(task.node, 'boot_mode', None) == 'uefi'

        def set_device(command: Any) -> None:
            result = command.set_bootdev(
                BOOT_DEVICES[device], persist=persistent, uefiboot=uefi
            )
            if isinstance(result, dict) and 'error' in result:
                raise exception.IPMIFailure(
                    node=task.node.uuid, error=result['error']
                )

        utils.call(
            self.conf,
            task.node,
            set_device,
            f'Setting boot device to {device}',
        )
        LOG.info(
            'IPMI boot device of node %(node)s set to %(device)s (%(how)s)',
            {
                'node': task.node.uuid,
                'device': device,
                'how': 'persistent' if persistent else 'next boot',
            },
        )

    def get_boot_device(self, task: base.TaskLike) -> dict[str, Any]:
        """The override the BMC holds; ``None`` for both when it has
        none (the machine boots as its firmware says)."""
        answer = utils.call(
            self.conf,
            task.node,
            lambda command: command.get_bootdev(),
            'Reading the boot device',
        )
        device = _DEVICE_OF.get(answer.get('bootdev'))
        if device is None:
            return {'boot_device': None, 'persistent': None}
        return {
            'boot_device': device,
            'persistent': bool(answer.get('persistent')),
        }

    def inject_nmi(self, task: base.TaskLike) -> None:
        utils.call(
            self.conf,
            task.node,
            lambda command: command.set_power('diag'),
            'Injecting an NMI',
        )
        LOG.info('IPMI NMI injected into node %s', task.node.uuid)

    def get_sensors_data(
        self, task: base.TaskLike
    ) -> dict[str, dict[str, dict[str, Any]]]:
        """The sensor readings by sensor type, then sensor name (the
        shape of upstream's, with pyghmi's decoded readings).

        :raises FailedToGetSensorData: the BMC did not give them.
        """
        try:
            readings = utils.call(
                self.conf,
                task.node,
                lambda command: list(command.get_sensor_data()),
                'Reading the sensors',
            )
        except exception.IPMIFailure as exc:
            raise exception.FailedToGetSensorData(
                node=task.node.uuid, error=exc
            ) from None
        data: dict[str, dict[str, dict[str, Any]]] = {}
        for reading in readings:
            data.setdefault(reading.type, {})[reading.name] = _sensor(reading)
        return data
