"""``ramdisk``: the deploy interface that writes nothing to the disk
(upstream's ``ramdisk`` deploy): the instance is an image the machine
boots every time, such as a live ISO or a diskless appliance.

``instance_info`` names what it boots: ``boot_iso`` (an http(s) URL; the
``redfish-virtual-media`` boot interface attaches it as the virtual CD
and makes the CD the persistent boot device), or ``kernel`` and
``ramdisk`` (for a boot interface that network-boots them; the ``fake``
one only records them). A deployment is one step, ``deploy.deploy``
(100): power off, the boot interface's ``prepare_instance``, the tenant
network, power on; the node is ``active`` without waiting for anything.
Undeploying powers the machine off and detaches the image; the cleaning
that follows runs on the ramdisk agent, as with the ``agent`` deploy
interface (:class:`~ironic_lite.drivers.agent.AgentCleaning`). Config
drives are not written (there is no disk to write them to): a request
with one is refused, as upstream.
"""

from typing import Any
import urllib.parse

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.drivers import agent
from ironic_lite.drivers import agent_deploy
from ironic_lite.drivers import base
from ironic_lite.drivers import standard

LOG = logging.getLogger(__name__)
_SCHEMES = ('http', 'https', 'file')


def _url(node_uuid: str, key: str, value: Any) -> str:
    parsed = urllib.parse.urlparse(str(value))
    if parsed.scheme not in _SCHEMES or not (parsed.netloc or parsed.path):
        raise exception.InvalidParameterValue(
            err=f'Invalid instance_info/{key} {value!r} of node {node_uuid}: '
            'an http, https or file URL is required'
        )
    return str(value)


def _boot(task: base.TaskLike) -> standard.BootInterface | None:
    boot = agent_deploy.interface_of(task, 'boot')
    return boot if isinstance(boot, standard.BootInterface) else None


class RamdiskDeploy(agent.AgentCleaning):
    """Boot the instance's image without writing the disk (see the module
    docstring)."""

    def validate_instance(self, task: base.TaskLike) -> None:
        node = task.node
        info = getattr(node, 'instance_info', None) or {}
        if info.get('boot_iso'):
            _url(node.uuid, 'boot_iso', info['boot_iso'])
        elif info.get('kernel') and info.get('ramdisk'):
            _url(node.uuid, 'kernel', info['kernel'])
            _url(node.uuid, 'ramdisk', info['ramdisk'])
        else:
            raise exception.MissingParameterValue(
                err=f'Node {node.uuid} cannot be deployed with the ramdisk '
                'deploy interface: instance_info needs boot_iso, or kernel '
                'and ramdisk'
            )
        if info.get('configdrive'):
            raise exception.InvalidParameterValue(
                err=f'Node {node.uuid}: the ramdisk deploy interface writes '
                'no config drive (there is no disk image to put it on)'
            )

    def deploy(self, task: base.TaskLike) -> str | None:
        """Power off, prepare the boot of the image, power on: done."""
        fail = agent_deploy.deploy_failure
        agent_deploy.set_power(task, states.POWER_OFF, fail)
        boot = _boot(task)
        if boot is not None:
            boot.prepare_instance(task)
        agent_deploy.to_tenant_network(task)
        agent_deploy.set_power(task, states.POWER_ON, fail)
        LOG.info(
            'Node %s: booted its ramdisk instance (nothing written to the '
            'disk)',
            task.node.uuid,
        )
        return None

    def tear_down(self, task: base.TaskLike) -> None:
        """Power off and detach the image (cleaning follows)."""
        agent_deploy.set_power(
            task, states.POWER_OFF, agent_deploy.deploy_failure
        )
        boot = _boot(task)
        if boot is not None:
            boot.clean_up_instance(task)
