"""The ``redfish`` firmware interface (after upstream's redfish
firmware.py, bios and bmc components; NICs are not done).

- ``cache_firmware_components`` records the system's ``BiosVersion``
  (component ``bios``) and its first manager's ``FirmwareVersion``
  (``bmc``): ``GET /v1/nodes/{node}/firmware``.
- ``update`` (clean step, priority 0, argument ``settings``: a list of
  ``{"component": "bios" | "bmc", "url": ...}``; upstream's ``wait``
  and ``nic:`` components are not taken) asks
  the UpdateService for a ``SimpleUpdate`` of each component in turn
  (the image ``url``, the system or the manager as the target) and
  waits in ``clean wait``; the conductor polls the BMC's task. When a
  task ends well, a BIOS update is applied by a reboot; then the next
  component starts. A task that fails (or ends in an exception state)
  fails the step with the BMC's messages.

A poll without the node lock (``task.shared``) only reads; only the
locked poll reboots or starts the next component.
"""

from typing import Any
from typing import cast

import jsonschema
from oslo_log import log as logging
import sushy

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.db import firmware as db_firmware
from ironic_lite.drivers import base
from ironic_lite.drivers import standard
from ironic_lite.drivers.redfish import utils

LOG = logging.getLogger(__name__)

BIOS, BMC = 'bios', 'bmc'
#: driver_internal_info: the components still to update, the first
#: one under way (with its BMC task monitor).
UPDATES_KEY = 'redfish_fw_updates'
SETTINGS_SCHEMA = {
    'type': 'array',
    'minItems': 1,
    'items': {
        'type': 'object',
        'required': ['component', 'url'],
        'properties': {
            'component': {'type': 'string', 'enum': [BIOS, BMC]},
            'url': {'type': 'string', 'minLength': 1},
        },
        'additionalProperties': False,
    },
}
_ARGSINFO = {
    'settings': {
        'description': 'A list of dicts with firmware components to be '
        'updated',
        'required': True,
        'type': 'array',
    }
}
_FAILED = {
    sushy.TaskState.EXCEPTION,
    sushy.TaskState.KILLED,
    sushy.TaskState.CANCELLED,
    sushy.TaskState.INTERRUPTED,
}


def validate_settings(settings: Any) -> None:
    try:
        jsonschema.validate(settings, SETTINGS_SCHEMA)
    except jsonschema.ValidationError as err:
        raise exception.InvalidParameterValue(
            err=f'Invalid firmware update {settings}. Errors: {err.message}'
        ) from None


def _manager(system: Any) -> Any:
    managers = system.managers
    if not managers:
        raise utils.RedfishError(error=f'system {system.path} has no manager')
    return managers[0]


def read_components(system: Any) -> list[dict[str, Any]]:
    components = []
    system.refresh(force=True)
    if system.bios_version:
        components.append(
            {'component': BIOS, 'current_version': system.bios_version}
        )
    manager = _manager(system)
    if manager.firmware_version:
        components.append(
            {'component': BMC, 'current_version': manager.firmware_version}
        )
    return components


class RedfishFirmware(standard.FirmwareInterface):
    """Firmware of a Redfish system through its UpdateService."""

    def get_properties(self) -> dict[str, str]:
        return dict(utils.COMMON_PROPERTIES)

    def validate(self, task: base.TaskLike) -> None:
        utils.parse_driver_info(task.node)

    def cache_firmware_components(
        self, task: base.TaskLike, flashed: tuple[str, ...] = ()
    ) -> None:
        node = task.node
        components = utils.call(
            self.conf, node, read_components, 'Reading the firmware versions'
        )
        if not components:
            raise exception.UnsupportedDriverExtension(
                driver=node.driver,
                extension='cache_firmware_components '
                '(the BMC reports no BIOS or BMC version)',
            )
        for component in components:
            if component['component'] in flashed:
                component['last_version_flashed'] = component[
                    'current_version'
                ]
            else:
                component.pop('last_version_flashed', None)
        self._keep_flashed(task, components)
        db_firmware.record_components(task.context, node.id, components)
        LOG.info(
            'Firmware components of node %(node)s cached: %(list)s',
            {'node': node.uuid, 'list': components},
        )

    @staticmethod
    def _keep_flashed(
        task: base.TaskLike, components: list[dict[str, Any]]
    ) -> None:
        """A component not flashed now keeps its last flashed version."""
        known = {
            row['component']: row
            for row in db_firmware.components_of(task.context, task.node.id)
        }
        for component in components:
            if 'last_version_flashed' not in component:
                row = known.get(component['component']) or {}
                component['last_version_flashed'] = row.get(
                    'last_version_flashed'
                )

    @base.clean_step(priority=0, argsinfo=_ARGSINFO)
    def update(
        self, task: base.TaskLike, settings: list[dict[str, Any]]
    ) -> Any:
        validate_settings(settings)
        pending = [dict(s) for s in settings]
        task.node.driver_internal_info[UPDATES_KEY] = {
            'pending': pending,
            'flashed': [],
        }
        self._start(task, pending[0])
        return states.CLEANWAIT

    def _start(self, task: base.TaskLike, update: dict[str, Any]) -> None:
        node = task.node

        def simple_update(system: Any) -> str:
            target = (
                system.path
                if update['component'] == BIOS
                else _manager(system).path
            )
            service = utils.connection(self.conf, node).get_update_service()
            monitor = service.simple_update(update['url'], targets=[target])
            return str(monitor.task_monitor_uri)

        update['task_monitor'] = utils.call(
            self.conf,
            node,
            simple_update,
            f'Starting the {update["component"]} firmware update',
        )
        LOG.info(
            'Node %(node)s: %(component)s firmware update from %(url)s '
            'started (BMC task %(task)s)',
            {
                'node': node.uuid,
                'component': update['component'],
                'url': update['url'],
                'task': update['task_monitor'],
            },
        )

    def _task_done(self, task: base.TaskLike, update: dict[str, Any]) -> bool:
        """Whether the BMC's task of ``update`` ended well (False while
        it runs); raise when it failed."""
        node = task.node

        def read(system: Any) -> tuple[bool, Any, list[str]]:
            monitor = utils.connection(self.conf, node).get_task_monitor(
                update['task_monitor']
            )
            if monitor.is_processing:
                return False, None, []
            bmc_task = monitor.get_task()
            messages = [str(m.message) for m in bmc_task.messages or []]
            return True, bmc_task.task_state, messages

        finished, state, messages = utils.call(
            self.conf, node, read, 'Checking the firmware update'
        )
        if not finished:
            return False
        if state in _FAILED:
            raise utils.RedfishError(
                error=f'Firmware update of {update["component"]} on node '
                f'{node.uuid} failed ({state.value}): '
                f'{"; ".join(messages) or "no message"}'
            )
        return True

    def poll_clean_step(self, task: base.TaskLike) -> bool:
        node = task.node
        progress = node.driver_internal_info.get(UPDATES_KEY)
        if not progress or not progress['pending']:
            return True
        current = progress['pending'][0]
        if not self._task_done(task, current):
            return False
        if getattr(task, 'shared', False):
            return True  # the locked poll acts on it
        if current['component'] == BIOS:
            cast(Any, task).interfaces['power'].reboot(task)
            node.power_state = states.POWER_ON
        progress['flashed'].append(current['component'])
        progress['pending'] = progress['pending'][1:]
        if progress['pending']:
            self._start(task, progress['pending'][0])
            return False
        node.driver_internal_info.pop(UPDATES_KEY, None)
        self.cache_firmware_components(task, tuple(progress['flashed']))
        return True

    def abort_clean_step(self, task: base.TaskLike) -> None:
        task.node.driver_internal_info.pop(UPDATES_KEY, None)
