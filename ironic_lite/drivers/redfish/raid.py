"""The ``redfish`` RAID interface: volumes of the system's Storage
resources (after upstream's redfish raid.py, a simpler subset).

- ``create_configuration`` (clean step, priority 0; upstream's
  ``create_root_volume`` / ``create_nonroot_volumes`` arguments) creates
  each logical disk of ``target_raid_config`` as a Volume: on the
  storage its ``controller`` names, else the first whose controllers
  offer the RAID type; on its ``physical_disks`` (drive ids), else the
  first drives of that storage not used by this configuration, as many
  as the level needs at least. ``size_gb`` ``MAX`` leaves the capacity
  to the controller, as upstream. A BMC that creates the volume
  asynchronously is waited for (``[redfish]raid_config_timeout``).
- ``delete_configuration`` (clean step, priority 0) deletes every
  volume with a RAID type.
- Both then record the volumes in ``raid_config``.

Not done (upstream does): spans for nested levels computed from the
disk count, sizes checked against free space, disk type/interface
hints, OnReset apply times with a reboot.
"""

from typing import Any

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.drivers import base
from ironic_lite.drivers import standard
from ironic_lite.drivers.redfish import raid_volumes
from ironic_lite.drivers.redfish import utils

LOG = logging.getLogger(__name__)

_CREATE_ARGSINFO = {
    'create_root_volume': {
        'description': 'This specifies whether to create the root volume. '
        'Defaults to `True`.',
        'required': False,
        'type': 'boolean',
    },
    'create_nonroot_volumes': {
        'description': 'This specifies whether to create the non-root '
        'volumes. Defaults to `True`.',
        'required': False,
        'type': 'boolean',
    },
}


def _chosen(
    logical_disks: list[dict[str, Any]], root: bool, nonroot: bool
) -> list[dict[str, Any]]:
    return [
        disk
        for disk in logical_disks
        if (root and disk.get('is_root_volume'))
        or (nonroot and not disk.get('is_root_volume'))
    ]


class RedfishRAID(standard.RAIDInterface):
    """RAID volumes through the BMC's Storage/Volumes resources."""

    def get_properties(self) -> dict[str, str]:
        return dict(utils.COMMON_PROPERTIES)

    def validate(self, task: base.TaskLike) -> None:
        utils.parse_driver_info(task.node)

    def validate_raid_config(
        self, task: base.TaskLike, raid_config: dict[str, Any]
    ) -> None:
        super().validate_raid_config(task, raid_config)
        for disk in raid_config.get('logical_disks', []):
            if disk['raid_level'] not in raid_volumes.RAID_LEVELS:
                raise exception.InvalidParameterValue(
                    err=f'RAID level {disk["raid_level"]} is not supported '
                    'by the redfish RAID interface; supported: '
                    f'{", ".join(raid_volumes.RAID_LEVELS)}'
                )

    def _record(self, task: base.TaskLike) -> None:
        node: Any = task.node
        disks = utils.call(
            self.conf,
            node,
            raid_volumes.logical_disks,
            'Reading the RAID volumes',
        )
        node.raid_config = {'logical_disks': disks}
        LOG.info(
            'RAID configuration of node %(node)s: %(disks)s',
            {'node': node.uuid, 'disks': disks},
        )

    @base.clean_step(priority=0, argsinfo=_CREATE_ARGSINFO)
    def create_configuration(
        self,
        task: base.TaskLike,
        create_root_volume: bool = True,
        create_nonroot_volumes: bool = True,
    ) -> None:
        node: Any = task.node
        target = (node.target_raid_config or {}).get('logical_disks')
        if not target:
            raise exception.MissingParameterValue(
                err=f'Node {node.uuid} has no target_raid_config to create'
            )
        wanted = _chosen(target, create_root_volume, create_nonroot_volumes)
        timeout = self.conf.redfish.raid_config_timeout

        def create(system: Any) -> None:
            used: set[str] = set()
            for disk in wanted:
                raid_volumes.create(
                    system, node.uuid, disk, used, timeout, task.checkpoint
                )

        utils.call(self.conf, node, create, 'Creating the RAID volumes')
        self._record(task)

    @base.clean_step(priority=0)
    def delete_configuration(self, task: base.TaskLike) -> None:
        node = task.node
        timeout = self.conf.redfish.raid_config_timeout
        utils.call(
            self.conf,
            node,
            lambda system: raid_volumes.delete_all(
                system, node.uuid, timeout, task.checkpoint
            ),
            'Deleting the RAID volumes',
        )
        self._record(task)
