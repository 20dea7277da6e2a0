"""Hardware types, and loading a node's interfaces with stevedore.

A hardware type names, per interface type, the interface
implementations (entry point names) it works with, in order of
preference. A node names its hardware type (``driver``) and may name
each interface; an unnamed one defaults to ``[DEFAULT]default_<type>_
interface`` when set (it must then be enabled and supported), else to the
first supported implementation that is also enabled.
"""

from collections.abc import Mapping
from typing import Any
from typing import ClassVar
from typing import cast

from oslo_config import cfg
import stevedore

from ironic_lite import exception
from ironic_lite.common import interfaces
from ironic_lite.drivers import base

HARDWARE_TYPES_NAMESPACE = 'ironic_lite.hardware.types'
INTERFACE_NAMESPACES = {
    kind: f'ironic_lite.hardware.interfaces.{kind}'
    for kind in interfaces.INTERFACE_TYPES
}


class HardwareType:
    """Base of hardware types: which interfaces go with the hardware."""

    #: interface type -> supported entry point names, preferred first.
    supported_interfaces: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: Whether a node may name any enabled interface, supported or not
    #: (the defaults still come from ``supported_interfaces``).
    accepts_any_enabled: ClassVar[bool] = False

    def supported(self, interface_type: str) -> tuple[str, ...]:
        return self.supported_interfaces.get(interface_type, ())

    def accepts(self, interface_type: str, name: str) -> bool:
        return self.accepts_any_enabled or name in self.supported(
            interface_type
        )


class FakeHardware(HardwareType):
    """``fake-hardware``: the fake interfaces, for tests and demos. As
    upstream's, a node may name any enabled interface; the defaults are
    the fake ones (upstream's order)."""

    accepts_any_enabled = True
    supported_interfaces: ClassVar[dict[str, tuple[str, ...]]] = {
        'power': ('fake',),
        'management': ('fake',),
        'deploy': ('fake', 'agent', 'ramdisk'),
        'boot': ('fake',),
        'network': ('noop',),
        'bios': ('fake', 'no-bios'),
        'console': ('fake', 'no-console'),
        'firmware': ('fake', 'no-firmware'),
        'inspect': ('fake', 'no-inspect'),
        'raid': ('fake', 'no-raid'),
        'rescue': ('fake', 'no-rescue', 'agent'),
        'storage': ('fake', 'noop'),
        'vendor': ('fake', 'no-vendor'),
    }


def _enabled(conf: cfg.ConfigOpts, interface_type: str) -> list[str]:
    return list(getattr(conf, f'enabled_{interface_type}_interfaces'))


def _load_hardware_type(conf: cfg.ConfigOpts, name: str) -> HardwareType:
    enabled = list(conf.enabled_hardware_types)
    if name not in enabled:
        raise exception.HardwareTypeNotEnabled(
            hardware_type=name, enabled=', '.join(enabled) or 'none'
        )
    try:
        manager: stevedore.DriverManager[Any] = stevedore.DriverManager(
            HARDWARE_TYPES_NAMESPACE, name, invoke_on_load=True
        )
    except stevedore.exception.NoMatches:
        raise exception.HardwareTypeNotFound(
            hardware_type=name, namespace=HARDWARE_TYPES_NAMESPACE
        )
    return cast(HardwareType, manager.driver)


def _choose_interface(
    conf: cfg.ConfigOpts,
    hw_name: str,
    hw_type: HardwareType,
    interface_type: str,
    requested: str | None,
) -> str:
    supported = hw_type.supported(interface_type)
    enabled = _enabled(conf, interface_type)
    if requested is None:
        configured = getattr(conf, f'default_{interface_type}_interface')
        if configured is not None:
            if configured in enabled and hw_type.accepts(
                interface_type, configured
            ):
                return str(configured)
            raise exception.NoValidDefaultForInterface(
                hardware_type=hw_name,
                interface_type=interface_type,
                name=configured,
                supported=', '.join(supported) or 'none',
                enabled=', '.join(enabled) or 'none',
            )
        for name in supported:
            if name in enabled:
                return name
        raise exception.NoInterfaceAvailable(
            hardware_type=hw_name,
            interface_type=interface_type,
            supported=', '.join(supported) or 'none',
            enabled=', '.join(enabled) or 'none',
        )
    if requested not in enabled:
        raise exception.InterfaceNotEnabled(
            interface_type=interface_type,
            name=requested,
            enabled=', '.join(enabled) or 'none',
        )
    if not hw_type.accepts(interface_type, requested):
        raise exception.InterfaceNotSupported(
            hardware_type=hw_name,
            interface_type=interface_type,
            name=requested,
            supported=', '.join(supported) or 'none',
        )
    return requested


def _load_interface(
    conf: cfg.ConfigOpts, interface_type: str, name: str
) -> base.BaseInterface:
    namespace = INTERFACE_NAMESPACES[interface_type]
    try:
        manager: stevedore.DriverManager[Any] = stevedore.DriverManager(
            namespace, name, invoke_on_load=True, invoke_args=(conf,)
        )
    except stevedore.exception.NoMatches:
        raise exception.InterfaceNotFound(
            interface_type=interface_type, name=name, namespace=namespace
        )
    interface = cast(base.BaseInterface, manager.driver)
    if interface.interface_type != interface_type:
        raise exception.InterfaceNotFound(
            interface_type=interface_type,
            name=name,
            namespace=f'{namespace}; it is a {interface.interface_type} '
            'interface',
        )
    return interface


def load_interfaces(
    conf: cfg.ConfigOpts,
    node_driver: str,
    node_interface_names: Mapping[str, str | None],
) -> dict[str, base.BaseInterface]:
    """The interfaces of a node, one of each type.

    :param node_driver: the node's hardware type.
    :param node_interface_names: interface type -> the name the node
        asks for (``node.power_interface`` ...); a missing or None
        entry takes the hardware type's default.
    :returns: interface type -> loaded interface, in the order of
        :data:`ironic_lite.drivers.interfaces.INTERFACE_TYPES`.
    :raises InvalidParameterValue: in its subclasses
        HardwareTypeNotEnabled, HardwareTypeNotFound, InterfaceNotEnabled,
        InterfaceNotSupported, NoInterfaceAvailable, InterfaceNotFound,
        with a message saying what to fix.
    """
    names = interface_names(conf, node_driver, node_interface_names)
    return {
        interface_type: _load_interface(conf, interface_type, name)
        for interface_type, name in names.items()
    }


def driver_properties(conf: cfg.ConfigOpts, driver: str) -> dict[str, str]:
    """What the default interfaces of hardware type ``driver`` read from
    ``driver_info`` (as upstream: a node that names other interfaces may
    read other keys).

    :raises InvalidParameterValue: see :func:`load_interfaces`.
    """
    properties: dict[str, str] = {}
    for interface in load_interfaces(conf, driver, {}).values():
        properties.update(interface.get_properties())
    return properties


def interface_names(
    conf: cfg.ConfigOpts,
    node_driver: str,
    node_interface_names: Mapping[str, str | None],
) -> dict[str, str]:
    """The interface a node uses, per interface type: the one it names,
    or its hardware type's default (what a new node records).

    :raises InvalidParameterValue: see :func:`load_interfaces`.
    """
    hw_type = _load_hardware_type(conf, node_driver)
    return {
        interface_type: _choose_interface(
            conf,
            node_driver,
            hw_type,
            interface_type,
            node_interface_names.get(interface_type),
        )
        for interface_type in interfaces.INTERFACE_TYPES
    }


def interfaces_by_hardware_type(
    conf: cfg.ConfigOpts, hardware_types: list[str]
) -> dict[str, dict[str, dict[str, Any]]]:
    """What a conductor records for ``GET /v1/drivers`` (API 1.30): per
    hardware type and interface type, the enabled interfaces a node of
    that type may name and the one it gets by default.

    :raises InvalidParameterValue: see :func:`load_interfaces`.
    """
    result: dict[str, dict[str, dict[str, Any]]] = {}
    for name in hardware_types:
        hw_type = _load_hardware_type(conf, name)
        defaults = interface_names(conf, name, {})
        result[name] = {
            kind: {
                'enabled': [
                    impl
                    for impl in _enabled(conf, kind)
                    if hw_type.accepts(kind, impl)
                ],
                'default': defaults[kind],
            }
            for kind in interfaces.INTERFACE_TYPES
        }
    return result


class RedfishHardware(HardwareType):
    """``redfish``: power, management, BIOS, firmware, inspection and
    RAID through the BMC's Redfish service (sushy), and booting from
    virtual media on request. A redfish node deploys with the fake
    interface by default; the ``agent`` deploy interface cleans and
    deploys through the node's ramdisk agent (it writes the image), the
    ``ramdisk`` one boots the instance's image without writing the disk
    (a ``boot_iso`` on the virtual CD)."""

    supported_interfaces: ClassVar[dict[str, tuple[str, ...]]] = {
        'power': ('redfish',),
        'management': ('redfish',),
        'deploy': ('fake', 'agent', 'ramdisk'),
        'boot': ('fake', 'redfish-virtual-media'),
        'network': ('noop', 'flat'),
        'bios': ('redfish', 'no-bios'),
        'console': ('no-console',),
        'firmware': ('redfish', 'no-firmware'),
        'inspect': ('redfish', 'no-inspect'),
        'raid': ('redfish', 'no-raid'),
        'rescue': ('no-rescue', 'agent'),
        'storage': ('noop',),
        'vendor': ('no-vendor',),
    }


class IPMIHardware(HardwareType):
    """``ipmi``: power and management through the BMC with IPMI 2.0
    (pyghmi). Upstream's interfaces of this type are named ``ipmitool``;
    these are ``ipmi`` (they do not run ipmitool). The other interfaces
    are redfish's."""

    supported_interfaces: ClassVar[dict[str, tuple[str, ...]]] = {
        **RedfishHardware.supported_interfaces,
        'power': ('ipmi',),
        'management': ('ipmi',),
    }
