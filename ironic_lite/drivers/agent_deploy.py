"""The deploy steps of the ``agent`` deploy interface (upstream's
``direct``/``agent`` deploy): an image written by the node's ramdisk
agent, then the machine booted from its disk.

=====================================  ========  ==========================
step                                   priority  what it does
=====================================  ========  ==========================
``deploy.deploy``                      100       boots the agent; waits
                                                 (``wait call-back``) for
                                                 its first heartbeat
``deploy.write_image``                 80        stages the image
                                                 (:mod:`deploy_images`) and
                                                 sends ``standby.prepare_
                                                 image`` with the config
                                                 drive; waits for the
                                                 command to end
``deploy.prepare_instance_boot``       60        a partition image:
                                                 the agent's
                                                 ``image.install_
                                                 bootloader``; boot
                                                 device: disk,
                                                 persistent
``deploy.tear_down_agent``             40        powers the machine off
                                                 (the agent is forgotten)
``deploy.switch_to_tenant_network``    30        the network interface's
                                                 provisioning -> tenant
``deploy.boot_instance``               20        powers the machine on
=====================================  ========  ==========================

A partition image (:mod:`instance_image`) is laid out by the agent for
the node's boot mode (:func:`boot_fields`); the root partition's UUID
the agent reports is kept in ``driver_internal_info``
(``root_uuid_or_disk_id``, with ``is_whole_disk_image`` false, as
upstream; ``efi_system_partition_uuid`` in UEFI mode) and handed to
``install_bootloader``.

A waiting step is polled by the conductor's deploy-wait periodic task
and at each heartbeat of the agent (:mod:`ironic_lite.conductor.
agent_cleaning`): ``deploy`` is done once an agent booted for it
heartbeated (the boot forgot the previous agent's URL and token), and
``write_image`` once the agent's command ended: ``SUCCEEDED`` goes on,
``FAILED`` fails the deployment with the agent's error (a checksum
mismatch, a short download, a full disk ...): the node never becomes
``active`` with a disk that does not hold its image. An agent that stops
heartbeating fails it at ``[conductor]deploy_callback_timeout``.

Both waiting steps are abortable: the machine is powered off, which
stops the agent.
"""

from collections.abc import Callable
from typing import Any
from typing import cast

from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import agent_token
from ironic_lite.common import states
from ironic_lite.drivers import agent_client
from ironic_lite.drivers import base
from ironic_lite.drivers import deploy_images
from ironic_lite.drivers import image_service
from ironic_lite.drivers import instance_image

LOG = logging.getLogger(__name__)

#: driver_internal_info: the running agent command (shared with the
#: clean steps: one command at a time).
COMMAND_KEY = 'agent_command_id'
#: driver_internal_info: the type of the image being written.
IMAGE_TYPE_KEY = 'agent_image_type'
#: The agent's statuses of a command.
_RUNNING, _SUCCEEDED = 'RUNNING', 'SUCCEEDED'
#: driver_internal_info of a written image (upstream's names).
WHOLE_DISK_KEY = 'is_whole_disk_image'
ROOT_UUID_KEY = 'root_uuid_or_disk_id'
EFI_UUID_KEY = 'efi_system_partition_uuid'
_UUID_FIELDS = {
    'root_uuid': ROOT_UUID_KEY,
    'efi_system_partition_uuid': EFI_UUID_KEY,
}


def _capability(capabilities: Any, name: str) -> str | None:
    """``name``'s value in capabilities (``"k:v,k2:v2"`` or a dict)."""
    if isinstance(capabilities, dict):
        value = capabilities.get(name)
        return None if value is None else str(value)
    for pair in str(capabilities or '').split(','):
        key, _, value = pair.partition(':')
        if key.strip() == name and value.strip():
            return value.strip()
    return None


def boot_fields(task: base.TaskLike, conf: Any) -> dict[str, Any]:
    """``deploy_boot_mode`` and ``disk_label`` of a partition image, as
    upstream finds them: instance_info's ``deploy_boot_mode``, the
    ``boot_mode`` capability of instance_info then properties, the
    node's ``boot_mode``, then ``[deploy]default_boot_mode``."""
    node = task.node
    instance = getattr(node, 'instance_info', None) or {}
    properties = getattr(node, 'properties', None) or {}
    sources = (
        instance.get('capabilities'),
        properties.get('capabilities'),
    )
    mode = instance.get('deploy_boot_mode') or next(
        (m for m in (_capability(c, 'boot_mode') for c in sources) if m),
        None,
    )
    mode = mode or getattr(node, 'boot_mode', None)
    if mode not in ('bios', 'uefi'):
        mode = conf.deploy.default_boot_mode
    fields: dict[str, Any] = {'deploy_boot_mode': mode}
    label = next(
        (x for x in (_capability(c, 'disk_label') for c in sources) if x),
        None,
    )
    if label:
        fields['disk_label'] = label
    return fields


def _record_uuids(node: Any, result: str, staged_type: str | None) -> None:
    """What the agent's result says of the partitions (upstream's
    ``root_uuid=`` ...), in driver_internal_info."""
    info = node.driver_internal_info
    for key in _UUID_FIELDS.values():
        info.pop(key, None)
    info[WHOLE_DISK_KEY] = staged_type != instance_image.PARTITION
    if info[WHOLE_DISK_KEY]:
        return
    for word in result.split():
        name, sep, value = word.partition('=')
        if sep and name in _UUID_FIELDS and value:
            info[_UUID_FIELDS[name]] = value
    if ROOT_UUID_KEY not in info:
        raise exception.InstanceDeployFailure(
            reason=f'the agent of node {node.uuid} wrote the partition '
            f'image but named no root_uuid: {result}'
        )


def interface_of(task: base.TaskLike, kind: str) -> Any:
    """The task's interface of ``kind`` (None without one)."""
    return getattr(task, 'interfaces', {}).get(kind)


#: Builds the exception of a flow from a reason (cleaning and deploying
#: fail with their own).
Failure = Callable[[str], Exception]


def deploy_failure(reason: str) -> Exception:
    return exception.InstanceDeployFailure(reason=reason)


def power_of(task: base.TaskLike, fail: Failure) -> base.PowerInterface:
    power = interface_of(task, 'power')
    if not isinstance(power, base.PowerInterface):
        raise fail(f'node {task.node.uuid} has no power interface')
    return power


def set_power(task: base.TaskLike, target: str, fail: Failure) -> None:
    """Power ``target`` unless the machine is there; the state kept."""
    power = power_of(task, fail)
    if power.get_power_state(task) != target:
        power.set_power_state(task, target)
    task.node.power_state = power.get_power_state(task)


def boot(task: base.TaskLike, fail: Failure) -> None:
    """Boot the machine (its agent then looks the node up): reboot it
    when on; the state kept."""
    power = power_of(task, fail)
    if power.get_power_state(task) == states.POWER_ON:
        power.reboot(task)
    else:
        power.set_power_state(task, states.POWER_ON)
    task.node.power_state = power.get_power_state(task)


def call_network(task: base.TaskLike, *methods: str) -> None:
    """Call these methods of the node's network interface, in order (an
    interface without one skips it)."""
    network = interface_of(task, 'network')
    for name in methods:
        method = getattr(network, name, None)
        if method is not None:
            method(task)


def to_tenant_network(task: base.TaskLike) -> None:
    """The provisioning network off, the tenant's on."""
    call_network(
        task, 'remove_provisioning_network', 'configure_tenant_networks'
    )


class AgentDeploySteps:
    """Mixed into :class:`ironic_lite.drivers.agent.AgentDeploy` (whose
    :class:`~ironic_lite.drivers.agent.AgentCleaning` gives ``client``)."""

    conf: Any
    _images: image_service.ImageService | None = None
    client: Callable[[base.TaskLike], agent_client.AgentClient]

    def image_service(self) -> image_service.ImageService:
        if self._images is None:
            self._images = image_service.ImageService(self.conf)
        return self._images

    def validate_instance(self, task: base.TaskLike) -> None:
        """``instance_info`` names a deployable image (400 otherwise)."""
        info = getattr(task.node, 'instance_info', None) or {}
        source = instance_image.parse(task.node.uuid, info)
        if (
            source.kind == instance_image.HTTP
            and self.conf.deploy.image_download_source == 'http'
            and source.disk_format is None
        ):
            raise exception.InvalidParameterValue(
                err=f'Cannot deploy node {task.node.uuid}: instance_info '
                'image_disk_format is required when the agent downloads '
                'the image itself ([deploy]image_download_source = http)'
            )

    # -- 100: the agent

    def deploy(self, task: base.TaskLike) -> str | None:
        """Boot the agent (reboot a machine that is on); wait for it."""
        node = task.node
        info = node.driver_internal_info
        info.pop(COMMAND_KEY, None)
        boot(task, deploy_failure)
        # What the agent of before knew is no longer valid: the agent
        # booted now looks the node up and gets a token of its own.
        agent_token.wipe_on_power_off(info)
        LOG.info(
            'Node %s: booted for deployment; waiting for its agent',
            node.uuid,
        )
        return states.DEPLOYWAIT

    # -- 80: the image

    @base.deploy_step(priority=80, abortable=True)
    def write_image(self, task: base.TaskLike) -> str | None:
        """Stage the image and have the agent write it (and the config
        drive)."""
        node = task.node
        source = instance_image.parse(
            node.uuid, getattr(node, 'instance_info', None) or {}
        )
        staged = deploy_images.stage(
            self.conf,
            self.image_service(),
            node.uuid,
            source,
            boot_fields(task, self.conf),
        )
        node.driver_internal_info[IMAGE_TYPE_KEY] = staged.image_info.get(
            'image_type'
        )
        params: dict[str, Any] = {'image_info': staged.image_info}
        configdrive = (getattr(node, 'instance_info', None) or {}).get(
            'configdrive'
        )
        if configdrive:
            params['configdrive'] = configdrive
        try:
            answer = self.client(task).command('standby.prepare_image', params)
        except Exception:
            deploy_images.release(node.uuid)
            raise
        if not answer.get('id'):
            deploy_images.release(node.uuid)
            raise exception.InstanceDeployFailure(
                reason=f'the agent of node {node.uuid} answered '
                f'prepare_image without a command id: {answer}'
            )
        node.driver_internal_info[COMMAND_KEY] = answer['id']
        LOG.info(
            'Node %(node)s: the agent writes image %(image)s%(drive)s',
            {
                'node': node.uuid,
                'image': source.image_id,
                'drive': ' and the config drive' if configdrive else '',
            },
        )
        return states.DEPLOYWAIT

    # -- 60 .. 20: booting the instance

    @base.deploy_step(priority=60)
    def prepare_instance_boot(self, task: base.TaskLike) -> None:
        """A partition image: the agent installs the boot loader. Then
        boot from the disk, persistently (a management interface that
        cannot choose, such as the fake one, leaves it alone)."""
        if task.node.driver_internal_info.get(WHOLE_DISK_KEY) is False:
            self._install_bootloader(task)
        management = interface_of(task, 'management')
        if not isinstance(management, base.ManagementInterface):
            return
        if 'disk' in management.get_supported_boot_devices(task):
            management.set_boot_device(task, 'disk', persistent=True)
        else:
            LOG.info(
                'Node %s: its management interface cannot set the boot '
                'device to disk; left as it is',
                task.node.uuid,
            )

    def _install_bootloader(self, task: base.TaskLike) -> None:
        """``image.install_bootloader`` with the partitions' UUIDs
        (upstream's parameters); a failure fails the deployment.

        :raises InstanceDeployFailure: the agent failed or did not end.
        """
        node = task.node
        info = node.driver_internal_info
        mode = boot_fields(task, self.conf)['deploy_boot_mode']
        params = {
            'root_uuid': info.get(ROOT_UUID_KEY),
            'efi_system_part_uuid': info.get(EFI_UUID_KEY),
            'prep_boot_part_uuid': None,
            'target_boot_mode': mode,
            'ignore_bootloader_failure': False,
        }
        answer = self.client(task).command(
            'image.install_bootloader', params, wait=True
        )
        status = answer.get('command_status')
        if status != _SUCCEEDED:
            error = (
                agent_client.command_error(answer)
                if status != _RUNNING
                else 'the agent did not end the command in time'
            )
            raise exception.InstanceDeployFailure(
                reason=f'Failed to install a bootloader when deploying node '
                f'{node.uuid}. Error: {error}'
            )
        LOG.info(
            'Node %s: %s',
            node.uuid,
            (answer.get('command_result') or {}).get('result'),
        )

    @base.deploy_step(priority=40)
    def tear_down_agent(self, task: base.TaskLike) -> None:
        """Power off: the agent stops and is forgotten."""
        set_power(task, states.POWER_OFF, deploy_failure)
        agent_token.wipe_token_and_url(task.node.driver_internal_info)
        task.node.driver_internal_info.pop(COMMAND_KEY, None)

    @base.deploy_step(priority=30)
    def switch_to_tenant_network(self, task: base.TaskLike) -> None:
        to_tenant_network(task)

    @base.deploy_step(priority=20)
    def boot_instance(self, task: base.TaskLike) -> None:
        set_power(task, states.POWER_ON, deploy_failure)

    # -- waiting

    def poll_deploy_step(self, task: base.TaskLike) -> bool:
        node = task.node
        step = cast(dict[str, Any], getattr(node, 'deploy_step', None) or {})
        info = node.driver_internal_info
        if step.get('step') == 'deploy':
            return bool(info.get(agent_token.URL_KEY))
        if step.get('step') != 'write_image':
            return False
        command_id = info.get(COMMAND_KEY)
        if not command_id:
            return True
        try:
            command = self.client(task).get_command(str(command_id))
        except (
            exception.AgentConnectionFailed,
            exception.AgentAPIError,
        ) as exc:
            # The next heartbeat or poll asks again; an agent that is
            # gone fails the deployment at the callback timeout.
            LOG.warning(
                'Node %s: cannot get the status of prepare_image from '
                'its agent: %s',
                node.uuid,
                exc,
            )
            return False
        status = command.get('command_status')
        if status == _RUNNING:
            return False
        deploy_images.release(node.uuid)
        info.pop(COMMAND_KEY, None)
        if status == _SUCCEEDED:
            result = str((command.get('command_result') or {}).get('result'))
            _record_uuids(node, result, info.pop(IMAGE_TYPE_KEY, None))
            LOG.info(
                'Node %s: the agent wrote the image: %s', node.uuid, result
            )
            return True
        raise exception.InstanceDeployFailure(
            reason=f'the agent of node {node.uuid} failed to write the '
            f'image: {agent_client.command_error(command)}'
        )

    def deploy_step_abortable(self, name: str) -> bool:
        return name in ('deploy', 'write_image')

    def abort_deploy_step(self, task: base.TaskLike) -> None:
        """Power the machine off (the agent stops where it is)."""
        deploy_images.release(task.node.uuid)
        task.node.driver_internal_info.pop(COMMAND_KEY, None)
        task.node.driver_internal_info.pop(IMAGE_TYPE_KEY, None)
        set_power(task, states.POWER_OFF, deploy_failure)
        agent_token.wipe_token_and_url(task.node.driver_internal_info)
