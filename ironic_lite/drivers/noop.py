"""Interfaces for what a node does without.

The ``no-*`` ones (``no-bios``, ``no-console``, ``no-firmware``,
``no-inspect``, ``no-raid``, ``no-rescue``, ``no-vendor``) refuse every
call, validation included, with upstream's message: "Driver X does not
support bios (disabled or not implemented)." ``noop`` network and
storage do nothing and succeed: a node on a flat network that someone
else wires, booting from its local disk.
"""

from typing import Any
from typing import NoReturn

from ironic_lite import exception
from ironic_lite.drivers import base
from ironic_lite.drivers import standard


class _Refuses:
    """Every call, validation included, is refused."""

    interface_type: str

    def _refuse(
        self, task: base.TaskLike, *args: Any, **kwargs: Any
    ) -> NoReturn:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension=self.interface_type
        )

    def validate(self, task: base.TaskLike) -> None:
        self._refuse(task)


class NoBIOS(_Refuses, standard.BIOSInterface):
    apply_configuration = _Refuses._refuse
    factory_reset = _Refuses._refuse
    cache_bios_settings = _Refuses._refuse


class NoConsole(_Refuses, standard.ConsoleInterface):
    start_console = _Refuses._refuse
    stop_console = _Refuses._refuse
    get_console = _Refuses._refuse


class NoFirmware(_Refuses, standard.FirmwareInterface):
    update = _Refuses._refuse
    cache_firmware_components = _Refuses._refuse


class NoInspect(_Refuses, standard.InspectInterface):
    inspect_hardware = _Refuses._refuse


class NoRAID(_Refuses, standard.RAIDInterface):
    create_configuration = _Refuses._refuse
    delete_configuration = _Refuses._refuse
    validate_raid_config = _Refuses._refuse


class NoRescue(_Refuses, standard.RescueInterface):
    rescue = _Refuses._refuse
    unrescue = _Refuses._refuse


class NoVendor(_Refuses, standard.VendorInterface):
    pass


class NoopNetwork(standard.NetworkInterface):
    """The network is wired by someone else: nothing to plug, and VIFs
    are accepted without being recorded (upstream's noop)."""

    def add_provisioning_network(self, task: base.TaskLike) -> None:
        pass

    def remove_provisioning_network(self, task: base.TaskLike) -> None:
        pass

    def configure_tenant_networks(self, task: base.TaskLike) -> None:
        pass

    def unconfigure_tenant_networks(self, task: base.TaskLike) -> None:
        pass

    def add_cleaning_network(self, task: base.TaskLike) -> None:
        pass

    def remove_cleaning_network(self, task: base.TaskLike) -> None:
        pass

    # As upstream's noop: VIFs are someone else's; nothing is recorded,
    # so none is listed.

    def vif_attach(
        self, task: base.TaskLike, vif_info: dict[str, Any]
    ) -> None:
        pass

    def vif_detach(self, task: base.TaskLike, vif_id: str) -> None:
        pass

    def vif_list(self, task: base.TaskLike) -> list[dict[str, Any]]:
        return []


class NoopStorage(standard.StorageInterface):
    """No volumes: the node boots from its local disk."""

    def attach_volumes(self, task: base.TaskLike) -> None:
        pass

    def detach_volumes(self, task: base.TaskLike) -> None:
        pass

    def should_write_image(self, task: base.TaskLike) -> bool:
        return True
