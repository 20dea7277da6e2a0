"""Loading a node's hardware type and interfaces through stevedore.

The entry points are those the project's setup.cfg declares; when the
installed package does not declare them yet, a distribution written
into a temporary directory does.
"""

import configparser
import importlib.metadata
from pathlib import Path
import types
from typing import ClassVar

import pytest
import stevedore

from ironic_lite import exception
from ironic_lite.common import interfaces
from ironic_lite.drivers import fake
from ironic_lite.drivers import hardware
from ironic_lite.tests.unit import make_conf


def _project_entry_points() -> str:
    """The ironic_lite.hardware.* entry points of setup.cfg."""
    parser = configparser.ConfigParser()
    parser.read(Path(__file__).parents[3] / 'setup.cfg')
    section = parser['entry_points']
    return ''.join(
        f'[{group}]\n{section[group].strip()}\n'
        for group in section
        if group.startswith('ironic_lite.hardware.')
    )


TEST_ENTRY_POINTS = """\
[ironic_lite.hardware.types]
picky-hardware = ironic_lite.tests.unit.test_hardware:PickyHardware
[ironic_lite.hardware.interfaces.deploy]
misplaced = ironic_lite.drivers.fake:FakePower
"""


class PickyHardware(hardware.HardwareType):
    supported_interfaces: ClassVar[dict[str, tuple[str, ...]]] = {
        **hardware.FakeHardware.supported_interfaces,
        'power': ('other', 'fake'),
        'management': ('fake',),
        'deploy': ('fake', 'misplaced'),
    }


def _installed() -> bool:
    names = importlib.metadata.entry_points(
        group=hardware.HARDWARE_TYPES_NAMESPACE
    ).names
    return 'fake-hardware' in names


@pytest.fixture(autouse=True)
def entry_points(tmp_path, monkeypatch):
    text = TEST_ENTRY_POINTS
    if not _installed():
        text += _project_entry_points()
    dist = tmp_path / 'ironic_lite_unit_test-0.dist-info'
    dist.mkdir()
    (dist / 'METADATA').write_text(
        'Metadata-Version: 2.1\nName: ironic-lite-unit-test\nVersion: 0\n'
    )
    (dist / 'entry_points.txt').write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    # stevedore remembers each namespace's entry points for the life of
    # the process: forget what earlier tests loaded, before and after.
    monkeypatch.setattr(stevedore.ExtensionManager, 'ENTRY_POINT_CACHE', {})


def _conf(**overrides):
    overrides.setdefault(
        'enabled_hardware_types', ['fake-hardware', 'picky-hardware']
    )
    return make_conf(**overrides)


def test_fake_hardware_defaults():
    conf = _conf()
    loaded = hardware.load_interfaces(conf, 'fake-hardware', {})
    assert list(loaded) == list(interfaces.INTERFACE_TYPES)
    assert type(loaded['power']) is fake.FakePower
    assert type(loaded['management']) is fake.FakeManagement
    assert type(loaded['deploy']) is fake.FakeDeploy
    # As upstream's fake-hardware: the fake ones, noop network, and
    # noop storage ([DEFAULT]default_storage_interface).
    assert {
        kind: type(iface).__name__
        for kind, iface in loaded.items()
        if kind not in ('power', 'management', 'deploy')
    } == {
        'boot': 'FakeBoot',
        'network': 'NoopNetwork',
        'bios': 'FakeBIOS',
        'console': 'FakeConsole',
        'firmware': 'FakeFirmware',
        'inspect': 'FakeInspect',
        'raid': 'FakeRAID',
        'rescue': 'FakeRescue',
        'storage': 'NoopStorage',
        'vendor': 'FakeVendor',
    }
    assert all(iface.conf is conf for iface in loaded.values())
    assert all(iface.interface_type == kind for kind, iface in loaded.items())


def test_no_interfaces_refuse_everything():
    loaded = hardware.load_interfaces(
        _conf(),
        'fake-hardware',
        {
            kind: f'no-{kind}'
            for kind in (
                'bios',
                'console',
                'firmware',
                'inspect',
                'raid',
                'rescue',
                'vendor',
            )
        },
    )
    task = types.SimpleNamespace(
        node=types.SimpleNamespace(driver='fake-hardware')
    )
    for kind in (
        'bios',
        'console',
        'firmware',
        'inspect',
        'raid',
        'rescue',
        'vendor',
    ):
        with pytest.raises(
            exception.UnsupportedDriverExtension,
            match=f'does not support {kind} ',
        ):
            loaded[kind].validate(task)
    with pytest.raises(exception.UnsupportedDriverExtension):
        loaded['console'].start_console(task)
    with pytest.raises(exception.UnsupportedDriverExtension):
        loaded['raid'].create_configuration(task)


def test_configured_default_interface():
    loaded = hardware.load_interfaces(
        _conf(default_console_interface='no-console'), 'fake-hardware', {}
    )
    assert loaded['console'].interface_type == 'console'
    assert type(loaded['console']).__name__ == 'NoConsole'
    with pytest.raises(
        exception.NoValidDefaultForInterface, match='default_console_interface'
    ):
        hardware.load_interfaces(
            _conf(default_console_interface='ghost'), 'fake-hardware', {}
        )


def test_interfaces_recorded_per_hardware_type():
    recorded = hardware.interfaces_by_hardware_type(
        _conf(enabled_management_interfaces=['fake', 'other']),
        ['fake-hardware', 'picky-hardware'],
    )
    assert recorded['fake-hardware']['console'] == {
        'enabled': ['fake', 'no-console'],
        'default': 'fake',
    }
    assert recorded['fake-hardware']['storage']['default'] == 'noop'
    # fake-hardware takes any enabled interface; picky-hardware only
    # those it supports.
    assert recorded['fake-hardware']['management']['enabled'] == [
        'fake',
        'other',
    ]
    assert recorded['picky-hardware']['management']['enabled'] == ['fake']


def test_explicit_names():
    loaded = hardware.load_interfaces(
        _conf(),
        'fake-hardware',
        {'power': 'fake', 'management': None, 'deploy': 'fake'},
    )
    assert type(loaded['deploy']) is fake.FakeDeploy


def test_hardware_type_not_enabled():
    with pytest.raises(exception.HardwareTypeNotEnabled) as err:
        hardware.load_interfaces(make_conf(), 'picky-hardware', {})
    assert 'fake-hardware' in str(err.value)
    assert 'enabled_hardware_types' in str(err.value)
    assert err.value.code == 400


def test_hardware_type_not_installed():
    with pytest.raises(exception.HardwareTypeNotFound, match='ghost'):
        hardware.load_interfaces(
            _conf(enabled_hardware_types=['ghost']), 'ghost', {}
        )


def test_interface_not_enabled():
    with pytest.raises(exception.InterfaceNotEnabled) as err:
        hardware.load_interfaces(_conf(), 'fake-hardware', {'power': 'ipmi'})
    assert 'enabled_power_interfaces' in str(err.value)
    assert 'ipmi' in str(err.value)


def test_interface_not_supported_by_hardware_type():
    conf = _conf(enabled_management_interfaces=['fake', 'other'])
    with pytest.raises(exception.InterfaceNotSupported, match='other'):
        hardware.load_interfaces(
            conf, 'picky-hardware', {'management': 'other'}
        )
    # fake-hardware takes any enabled one (this one is not installed).
    with pytest.raises(exception.InterfaceNotFound, match='other'):
        hardware.load_interfaces(
            conf, 'fake-hardware', {'management': 'other'}
        )


def test_default_is_first_supported_and_enabled():
    loaded = hardware.load_interfaces(_conf(), 'picky-hardware', {})
    assert type(loaded['power']) is fake.FakePower


def test_enabled_and_supported_but_not_installed():
    conf = _conf(enabled_power_interfaces=['fake', 'other'])
    with pytest.raises(exception.InterfaceNotFound) as err:
        hardware.load_interfaces(conf, 'picky-hardware', {})
    assert 'ironic_lite.hardware.interfaces.power' in str(err.value)


def test_no_interface_available():
    conf = _conf(enabled_deploy_interfaces=['direct'])
    with pytest.raises(exception.NoInterfaceAvailable) as err:
        hardware.load_interfaces(conf, 'picky-hardware', {})
    assert 'direct' in str(err.value) and 'misplaced' in str(err.value)


def test_interface_of_the_wrong_type():
    conf = _conf(enabled_deploy_interfaces=['fake', 'misplaced'])
    with pytest.raises(
        exception.InterfaceNotFound, match='it is a power interface'
    ):
        hardware.load_interfaces(
            conf, 'picky-hardware', {'deploy': 'misplaced'}
        )


def test_driver_properties_merge_the_default_interfaces(monkeypatch):
    monkeypatch.setattr(
        fake.FakePower,
        'get_properties',
        lambda self: {'power_address': 'Required.'},
    )
    monkeypatch.setattr(
        fake.FakeDeploy,
        'get_properties',
        lambda self: {'deploy_image': 'Optional.'},
    )
    assert hardware.driver_properties(_conf(), 'fake-hardware') == {
        'power_address': 'Required.',
        'deploy_image': 'Optional.',
        # upstream's fake vendor interface's
        'B1': 'B1 description. Required.',
        'B2': 'B2 description. Required.',
    }


def test_driver_properties_of_a_driver_not_enabled():
    with pytest.raises(exception.HardwareTypeNotEnabled):
        hardware.driver_properties(_conf(), 'ipmi')
