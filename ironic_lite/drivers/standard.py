"""The standard interface types besides power, management and deploy.

Upstream Ironic gives every node thirteen interfaces; these are the
ten that a node may do without: each has a ``no-*`` implementation
(:mod:`ironic_lite.drivers.noop`) that refuses every call, so that
``GET /v1/nodes/{node}/validate`` says "does not support" rather than a
call failing half way. Storage and network have ``noop`` ones that do
nothing and succeed, as upstream's.

What the conductor calls on each is declared here; the flows that call
them (inspection, rescue, BIOS settings, consoles, VIFs ...) are each
in their own conductor module.
"""

import abc
from typing import Any

from ironic_lite import exception
from ironic_lite.drivers import base
from ironic_lite.drivers import raid


class BIOSInterface(base.BaseInterface, abc.ABC):
    interface_type = 'bios'

    @abc.abstractmethod
    def apply_configuration(
        self, task: base.TaskLike, settings: list[dict[str, Any]]
    ) -> None:
        """Set BIOS settings (``[{'name': ..., 'value': ...}]``)."""

    @abc.abstractmethod
    def factory_reset(self, task: base.TaskLike) -> None:
        """Put the BIOS settings back to the factory defaults."""

    @abc.abstractmethod
    def cache_bios_settings(self, task: base.TaskLike) -> None:
        """Read the node's BIOS settings into the database."""


class BootInterface(base.BaseInterface, abc.ABC):
    interface_type = 'boot'

    @abc.abstractmethod
    def prepare_ramdisk(
        self, task: base.TaskLike, ramdisk_params: dict[str, Any]
    ) -> None:
        """Make the node boot the deploy (or rescue) ramdisk next."""

    @abc.abstractmethod
    def clean_up_ramdisk(self, task: base.TaskLike) -> None:
        """Undo :meth:`prepare_ramdisk`."""

    @abc.abstractmethod
    def prepare_instance(self, task: base.TaskLike) -> None:
        """Make the node boot the deployed instance."""

    @abc.abstractmethod
    def clean_up_instance(self, task: base.TaskLike) -> None:
        """Undo :meth:`prepare_instance`."""


class ConsoleInterface(base.BaseInterface, abc.ABC):
    interface_type = 'console'

    @abc.abstractmethod
    def start_console(self, task: base.TaskLike) -> None:
        """Start the node's remote console."""

    @abc.abstractmethod
    def stop_console(self, task: base.TaskLike) -> None:
        """Stop it."""

    @abc.abstractmethod
    def get_console(self, task: base.TaskLike) -> dict[str, Any]:
        """``{'type': ..., 'url': ...}`` of the running console."""


class FirmwareInterface(base.BaseInterface, abc.ABC):
    interface_type = 'firmware'

    @abc.abstractmethod
    def update(
        self, task: base.TaskLike, settings: list[dict[str, Any]]
    ) -> None:
        """Flash firmware (``[{'component': ..., 'url': ...}]``)."""

    @abc.abstractmethod
    def cache_firmware_components(self, task: base.TaskLike) -> None:
        """Read the node's firmware components into the database."""


class InspectInterface(base.BaseInterface, abc.ABC):
    interface_type = 'inspect'

    @abc.abstractmethod
    def inspect_hardware(self, task: base.TaskLike) -> str | None:
        """Discover the node's properties: None (or ``manageable``) when
        done, ``states.INSPECTWAIT`` when it goes on asynchronously."""

    def abort(self, task: base.TaskLike) -> None:
        """Stop an asynchronous inspection (``inspect wait``); the
        default cannot, as upstream's."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='abort'
        )

    def continue_inspection(
        self,
        task: base.TaskLike,
        inventory: dict[str, Any],
        plugin_data: dict[str, Any],
    ) -> str | None:
        """Take what a ramdisk agent found (API 1.84): None when the
        inspection is done with it, ``states.INSPECTWAIT`` when it goes
        on. The default cannot (an out-of-band interface; upstream's
        fake too)."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='continue_inspection'
        )


class NetworkInterface(base.BaseInterface, abc.ABC):
    interface_type = 'network'

    @abc.abstractmethod
    def add_provisioning_network(self, task: base.TaskLike) -> None:
        """Before a deployment: plug the node into the provisioning
        network."""

    @abc.abstractmethod
    def remove_provisioning_network(self, task: base.TaskLike) -> None:
        """After it."""

    @abc.abstractmethod
    def configure_tenant_networks(self, task: base.TaskLike) -> None:
        """Plug the node into its instance's networks."""

    @abc.abstractmethod
    def unconfigure_tenant_networks(self, task: base.TaskLike) -> None:
        """Unplug it (at undeploy)."""

    @abc.abstractmethod
    def add_cleaning_network(self, task: base.TaskLike) -> None:
        """Before cleaning."""

    @abc.abstractmethod
    def vif_attach(
        self, task: base.TaskLike, vif_info: dict[str, Any]
    ) -> None:
        """Attach the virtual network interface ``vif_info['id']`` (API
        1.28) to one of the node's ports or portgroups."""

    @abc.abstractmethod
    def vif_detach(self, task: base.TaskLike, vif_id: str) -> None:
        """Detach it."""

    @abc.abstractmethod
    def vif_list(self, task: base.TaskLike) -> list[dict[str, Any]]:
        """The attached VIFs: ``[{'id': ...}]``."""

    @abc.abstractmethod
    def remove_cleaning_network(self, task: base.TaskLike) -> None:
        """After cleaning."""


class RAIDInterface(base.BaseInterface, abc.ABC):
    interface_type = 'raid'

    @abc.abstractmethod
    def create_configuration(
        self,
        task: base.TaskLike,
        create_root_volume: bool = True,
        create_nonroot_volumes: bool = True,
    ) -> None:
        """Build the node's ``target_raid_config``."""

    @abc.abstractmethod
    def delete_configuration(self, task: base.TaskLike) -> None:
        """Remove every logical disk."""

    def get_logical_disk_properties(self) -> dict[str, str]:
        """The logical disk keys a ``target_raid_config`` may use:
        name -> description (``GET /v1/drivers/{name}/raid/
        logical_disk_properties``); upstream's, by default."""
        return raid.descriptions()

    def validate_raid_config(
        self, task: base.TaskLike, raid_config: dict[str, Any]
    ) -> None:
        """Check a target RAID configuration before it is stored
        (upstream's schema, by default).

        :raises InvalidParameterValue: it is not valid.
        """
        raid.validate(raid_config)


class RescueInterface(base.BaseInterface, abc.ABC):
    interface_type = 'rescue'

    @abc.abstractmethod
    def rescue(self, task: base.TaskLike) -> str | None:
        """Boot the rescue ramdisk: None when the node is rescued,
        ``states.RESCUEWAIT`` when it goes on asynchronously."""

    @abc.abstractmethod
    def unrescue(self, task: base.TaskLike) -> None:
        """Boot the instance again."""


class StorageInterface(base.BaseInterface, abc.ABC):
    interface_type = 'storage'

    @abc.abstractmethod
    def attach_volumes(self, task: base.TaskLike) -> None:
        """Attach the node's volume targets."""

    @abc.abstractmethod
    def detach_volumes(self, task: base.TaskLike) -> None:
        """Detach them."""

    @abc.abstractmethod
    def should_write_image(self, task: base.TaskLike) -> bool:
        """Whether a deployment writes the image to the local disk
        (False when the node boots from a volume)."""


class VendorInterface(base.BaseInterface, abc.ABC):
    """Vendor-specific methods, called through the vendor passthru
    endpoints (:mod:`ironic_lite.drivers.vendor`); none is declared by
    the interface type."""

    interface_type = 'vendor'

    def validate_method(
        self, task: base.TaskLike, method: str, args: dict[str, Any]
    ) -> None:
        """Check a call of ``method`` with ``args`` before it runs
        (after the declared arguments were checked); raise
        InvalidParameterValue to refuse it (400)."""
