"""The local driver's power actions on real files: power.json beside the
disk says whether the guest runs and how often it booted; a stopped
guest that moves stays stopped."""

import json

import pytest

from nova_lite import exception
from nova_lite.common import power_state
from nova_lite.tests.unit.test_local_driver_move import _driver
from nova_lite.tests.unit.test_local_driver_move import _instance
from nova_lite.virt import local


def test_stop_start_reboot(conf, tmp_path):  # noqa: F811
    driver = _driver(conf, tmp_path, 'a')
    inst = _instance()
    driver.spawn(inst)
    assert driver.power_state(inst) == power_state.RUNNING
    assert driver.read_power(inst.uuid) == {'state': 'running', 'boots': 1}
    driver.power_off(inst)
    assert driver.power_state(inst) == power_state.SHUTDOWN
    assert json.loads(driver.power_path(inst.uuid).read_text()) == {
        'state': 'shutdown',
        'boots': 1,
    }
    driver.power_on(inst)
    assert driver.read_power(inst.uuid) == {'state': 'running', 'boots': 2}
    driver.power_on(inst)  # already running: no new boot
    assert driver.read_power(inst.uuid)['boots'] == 2
    driver.reboot(inst, 'HARD')
    assert driver.read_power(inst.uuid) == {'state': 'running', 'boots': 3}
    # The disk is untouched by all of it.
    assert driver.list_instance_uuids() == [inst.uuid]


def test_power_without_a_disk_is_refused(conf, tmp_path):  # noqa: F811
    driver = _driver(conf, tmp_path, 'a')
    inst = _instance()
    with pytest.raises(exception.VirtDriverError, match='has no disk'):
        driver.power_off(inst)
    assert driver.power_state(inst) == power_state.NOSTATE
    assert not driver.power_path(inst.uuid).exists()


def test_an_unreadable_power_file_says_what_to_do(conf, tmp_path):  # noqa: F811,E501
    driver = _driver(conf, tmp_path, 'a')
    inst = _instance()
    driver.spawn(inst)
    driver.power_path(inst.uuid).write_text('{not json')
    with pytest.raises(exception.VirtDriverError, match='delete it'):
        driver.power_state(inst)


def test_a_stopped_guest_moves_stopped(conf, tmp_path):  # noqa: F811
    src, dst = _driver(conf, tmp_path, 'a'), _driver(conf, tmp_path, 'b')
    inst = _instance()
    src.spawn(inst)
    src.power_off(inst)
    src.migrate_disk_and_power_off(inst, 'b', dst.prepare_incoming(inst))
    dst.finish_migration(inst, 1, power_on=False)
    assert dst.power_state(inst) == power_state.SHUTDOWN
    dst.destroy(inst)
    src.finish_revert_migration(inst, power_on=False)
    assert src.power_state(inst) == power_state.SHUTDOWN
    assert local.POWER_FILE == 'power.json'


def test_pause_unpause_suspend_resume(conf, tmp_path):  # noqa: F811
    driver = _driver(conf, tmp_path, 'a')
    inst = _instance()
    driver.spawn(inst)
    driver.pause(inst)
    assert driver.power_state(inst) == power_state.PAUSED
    driver.pause(inst)  # again (a resumed task): no change
    assert driver.read_power(inst.uuid) == {'state': 'paused', 'boots': 1}
    with pytest.raises(exception.VirtDriverError, match='not suspended'):
        driver.resume(inst)
    driver.unpause(inst)
    assert driver.power_state(inst) == power_state.RUNNING
    driver.suspend(inst)
    assert driver.power_state(inst) == power_state.SUSPENDED
    with pytest.raises(exception.VirtDriverError, match='not running'):
        driver.pause(inst)
    driver.resume(inst)
    # The same boot all along.
    assert driver.read_power(inst.uuid) == {'state': 'running', 'boots': 1}
