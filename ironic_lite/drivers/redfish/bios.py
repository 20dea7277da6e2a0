"""The ``redfish`` BIOS interface (upstream's redfish bios.py, on
ironic_lite's asynchronous step contract).

- ``cache_bios_settings`` reads the system's BIOS attributes, with the
  fields of the BIOS attribute registry where the BMC has one, into the
  node's settings (``GET /v1/nodes/{node}/bios``).
- ``apply_configuration`` (argument ``settings``) and ``factory_reset``
  are clean and deploy steps of priority 0. A BMC applies BIOS changes
  when the system restarts, so each step writes the pending settings
  (or asks for the reset), reboots the node and waits (``clean wait``);
  the conductor polls until the system has booted past POST (its
  BootProgress, where reported) and, for apply_configuration, every
  requested attribute reads back as asked. Then the settings are cached
  again. The conductor's callback timeout bounds the wait.
"""

from typing import Any
from typing import cast

from oslo_log import log as logging
import sushy

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.db import bios as db_bios
from ironic_lite.drivers import base
from ironic_lite.drivers import standard
from ironic_lite.drivers.redfish import bios_settings
from ironic_lite.drivers.redfish import utils

LOG = logging.getLogger(__name__)

#: driver_internal_info key of a step waiting for its reboot.
STATE_KEY = 'redfish_bios_state'
_SETTINGS_ARGSINFO = {
    'settings': {
        'description': 'A list of BIOS settings to be applied',
        'required': True,
        'type': 'array',
    }
}
#: BootProgress states that say the system is past POST (upstream's).
BOOTED = {
    sushy.BootProgressStates.OS_BOOT_STARTED,
    sushy.BootProgressStates.OS_RUNNING,
}


def _bios(system: Any, node_uuid: str, what: str) -> Any:
    try:
        return system.bios
    except sushy.exceptions.MissingAttributeError:
        raise exception.UnsupportedDriverExtension(
            driver='redfish',
            extension=f'{what} (the BMC of node '
            f'{node_uuid} has no BIOS resource)',
        ) from None


def _wait_state(task: base.TaskLike) -> str:
    """The wait state of the step that runs (deploy steps wait in
    ``wait call-back``)."""
    deploy_step = getattr(task.node, 'deploy_step', None)
    if deploy_step and not task.node.clean_step:
        return states.DEPLOYWAIT
    return states.CLEANWAIT


class RedfishBIOS(standard.BIOSInterface):
    """BIOS settings of a Redfish system (its ``Bios`` resource)."""

    def get_properties(self) -> dict[str, str]:
        return dict(utils.COMMON_PROPERTIES)

    def validate(self, task: base.TaskLike) -> None:
        utils.parse_driver_info(task.node)

    def cache_bios_settings(self, task: base.TaskLike) -> None:
        node = task.node

        def read(system: Any) -> list[dict[str, Any]]:
            bios = _bios(system, node.uuid, 'cache_bios_settings')
            bios.refresh(force=True)
            return bios_settings.with_registry(
                bios, bios.attributes or {}, node.uuid
            )

        settings = utils.call(
            self.conf, node, read, 'Reading the BIOS settings'
        )
        counts = db_bios.replace_settings(task.context, node.id, settings)
        LOG.info(
            'BIOS settings of node %(node)s cached: %(counts)s',
            {'node': node.uuid, 'counts': counts},
        )

    def _reboot(
        self, task: base.TaskLike, requested: dict[str, Any] | None
    ) -> str:
        """Remember what the step waits for, reboot, wait."""
        node = task.node
        node.driver_internal_info[STATE_KEY] = {
            'reboot_requested': True,
            'requested_bios_attrs': requested,
        }
        power = cast(Any, task).interfaces['power']
        power.reboot(task)
        node.power_state = states.POWER_ON
        LOG.info('Node %s rebooted to apply its BIOS changes', node.uuid)
        return _wait_state(task)

    @base.clean_step(priority=0, argsinfo=_SETTINGS_ARGSINFO)
    @base.deploy_step(priority=0, argsinfo=_SETTINGS_ARGSINFO)
    def apply_configuration(
        self, task: base.TaskLike, settings: list[dict[str, Any]]
    ) -> Any:
        node = task.node
        cached = {
            row['name']: row
            for row in db_bios.settings_of(task.context, node.id)
        }
        attributes = bios_settings.convert(node.uuid, settings, cached)

        def write(system: Any) -> bool:
            bios = _bios(system, node.uuid, 'apply_configuration')
            bios.refresh(force=True)
            current = bios.attributes or {}
            if all(current.get(k) == v for k, v in attributes.items()):
                return False
            bios.set_attributes(
                attributes, apply_time=bios_settings.apply_time(bios)
            )
            return True

        if not utils.call(
            self.conf, node, write, 'Applying the BIOS configuration'
        ):
            LOG.info(
                'All requested BIOS settings for node %s already '
                'match the current values, skipping apply and '
                'reboot.',
                node.uuid,
            )
            return None
        return self._reboot(task, attributes)

    @base.clean_step(priority=0)
    @base.deploy_step(priority=0)
    def factory_reset(self, task: base.TaskLike) -> Any:
        node = task.node
        utils.call(
            self.conf,
            node,
            lambda system: _bios(
                system, node.uuid, 'factory_reset'
            ).reset_bios(),
            'Resetting the BIOS to its factory settings',
        )
        return self._reboot(task, None)

    def _finished(self, task: base.TaskLike) -> bool:
        node = task.node
        state = node.driver_internal_info.get(STATE_KEY)
        if not state:
            return True
        requested = state.get('requested_bios_attrs') or {}

        def check(system: Any) -> bool:
            system.refresh(force=True)
            progress = getattr(system, 'boot_progress', None)
            last = getattr(progress, 'last_state', None)
            if last is not None and last not in BOOTED:
                return False
            bios = _bios(system, node.uuid, 'apply_configuration')
            return not bios_settings.unapplied(bios, requested)

        if not utils.call(
            self.conf, node, check, 'Checking the BIOS settings'
        ):
            return False
        if getattr(task, 'shared', False):
            return True  # the locked poll caches the settings
        node.driver_internal_info.pop(STATE_KEY, None)
        self.cache_bios_settings(task)
        LOG.info('BIOS changes of node %s applied', node.uuid)
        return True

    def poll_clean_step(self, task: base.TaskLike) -> bool:
        return self._finished(task)

    def poll_deploy_step(self, task: base.TaskLike) -> bool:
        return self._finished(task)

    def abort_clean_step(self, task: base.TaskLike) -> None:
        task.node.driver_internal_info.pop(STATE_KEY, None)
