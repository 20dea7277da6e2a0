"""The ``redfish-virtual-media`` boot interface: the node boots an ISO
image its BMC attaches as a virtual CD (after upstream's
RedfishVirtualMediaBoot, without building ISOs).

- ``prepare_ramdisk`` ejects what the virtual CD holds, inserts
  ``driver_info['deploy_iso']`` (an http(s) URL the BMC downloads) and
  makes the CD the next boot device;
- ``prepare_instance`` inserts ``instance_info['boot_iso']`` and boots
  from it every time when the instance has one (a ramdisk deploy, as
  upstream), else makes the local disk the persistent boot device;
- ``clean_up_ramdisk`` / ``clean_up_instance`` eject the CD.

Upstream can also build the ISO from ``deploy_kernel`` and
``deploy_ramdisk`` (and an EFI bootloader image); ironic_lite cannot,
so a node needs ``deploy_iso``, and validation says so.
"""

from typing import Any
from typing import cast
import urllib.parse

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.drivers import base
from ironic_lite.drivers import standard
from ironic_lite.drivers.redfish import utils
from ironic_lite.drivers.redfish import vmedia

LOG = logging.getLogger(__name__)

PROPERTIES = {
    'deploy_iso': 'URL of the deployment ISO to use (http or https: the '
    'BMC downloads it). Required.',
}


def _iso_url(node: Any, where: str, key: str, required: bool) -> str | None:
    value = (getattr(node, where, None) or {}).get(key)
    if not value:
        if required:
            raise exception.MissingParameterValue(
                err=f'Node {node.uuid} is missing {where}/{key}: the '
                'redfish-virtual-media boot interface of ironic_lite boots '
                'an ISO the BMC downloads (it does not build one from '
                'deploy_kernel and deploy_ramdisk)'
            )
        return None
    parsed = urllib.parse.urlparse(str(value))
    if parsed.scheme not in ('http', 'https') or not parsed.netloc:
        raise exception.InvalidParameterValue(
            err=f'Invalid {where}/{key} {value!r} of node {node.uuid}: an '
            'http or https URL is required'
        )
    return str(value)


class RedfishVirtualMediaBoot(standard.BootInterface):
    """Boot ISOs attached as the node's virtual CD."""

    def get_properties(self) -> dict[str, str]:
        return {**utils.COMMON_PROPERTIES, **PROPERTIES}

    def validate(self, task: base.TaskLike) -> None:
        utils.parse_driver_info(task.node)
        _iso_url(task.node, 'driver_info', 'deploy_iso', required=True)
        _iso_url(task.node, 'instance_info', 'boot_iso', required=False)

    def _management(self, task: base.TaskLike) -> base.ManagementInterface:
        return cast(
            base.ManagementInterface, cast(Any, task).interfaces['management']
        )

    def _boot_iso(
        self, task: base.TaskLike, url: str, persistent: bool
    ) -> None:
        node = task.node
        utils.call(
            self.conf,
            node,
            lambda system: vmedia.eject(system, node.uuid, 'cdrom'),
            'Ejecting the virtual CD',
        )
        utils.call(
            self.conf,
            node,
            lambda system: vmedia.insert(system, node.uuid, 'cdrom', url),
            'Inserting the virtual CD',
        )
        self._management(task).set_boot_device(
            task, 'cdrom', persistent=persistent
        )
        LOG.info(
            'Node %(node)s boots %(url)s from its virtual CD',
            {'node': node.uuid, 'url': url},
        )

    def _eject(self, task: base.TaskLike) -> None:
        node = task.node
        utils.call(
            self.conf,
            node,
            lambda system: vmedia.eject(system, node.uuid, 'cdrom'),
            'Ejecting the virtual CD',
        )

    def prepare_ramdisk(
        self, task: base.TaskLike, ramdisk_params: dict[str, Any]
    ) -> None:
        url = _iso_url(task.node, 'driver_info', 'deploy_iso', True)
        assert url is not None
        self._boot_iso(task, url, persistent=False)

    def clean_up_ramdisk(self, task: base.TaskLike) -> None:
        self._eject(task)

    def prepare_instance(self, task: base.TaskLike) -> None:
        url = _iso_url(task.node, 'instance_info', 'boot_iso', False)
        if url:
            self._boot_iso(task, url, persistent=True)
            return
        self._eject(task)
        self._management(task).set_boot_device(task, 'disk', persistent=True)

    def clean_up_instance(self, task: base.TaskLike) -> None:
        self._eject(task)
