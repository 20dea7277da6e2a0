"""The local driver's rescue on real files: ``disk.rescue`` beside the
untouched disk, replaced by a second rescue, removed by unrescue (which
is idempotent); the password only as a digest; a guest without a disk
is refused; and the agent's choice of rescue image."""

import hashlib
import types

import pytest

from nova_lite import exception
from nova_lite.common import power_state
from nova_lite.compute import rescue
from nova_lite.tests.unit.test_local_driver_move import _driver
from nova_lite.tests.unit.test_local_driver_move import _instance


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_rescue_then_unrescue(conf, tmp_path):  # noqa: F811
    driver = _driver(conf, tmp_path, 'a')
    inst = _instance()
    driver.spawn(inst)
    disk = driver.disk_path(inst.uuid)
    before = _digest(disk)
    driver.rescue(inst, 'rescue-img', 'pw')
    assert driver.rescue_of(inst.uuid) == {
        'instance': inst.uuid,
        'image': 'rescue-img',
        'password_sha256': hashlib.sha256(b'pw').hexdigest(),
    }
    assert b'pw"' not in driver.rescue_path(inst.uuid).read_bytes()
    assert driver.read_power(inst.uuid) == {'state': 'running', 'boots': 2}
    # Again: the rescue is replaced, the guest boots again.
    driver.rescue(inst, 'other-img', 'pw2')
    assert driver.rescue_of(inst.uuid)['image'] == 'other-img'
    assert driver.read_power(inst.uuid)['boots'] == 3
    assert driver.list_instance_uuids() == [inst.uuid]
    driver.unrescue(inst)
    assert driver.rescue_of(inst.uuid) is None
    assert driver.read_power(inst.uuid) == {'state': 'running', 'boots': 4}
    # Not rescued, running: nothing changes.
    driver.unrescue(inst)
    assert driver.read_power(inst.uuid)['boots'] == 4
    assert _digest(disk) == before
    assert not list(disk.parent.glob('*.part'))


def test_unrescue_starts_a_stopped_guest_not_rescued(conf, tmp_path):  # noqa: F811,E501
    driver = _driver(conf, tmp_path, 'a')
    inst = _instance()
    driver.spawn(inst)
    driver.power_off(inst)
    driver.unrescue(inst)
    assert driver.power_state(inst) == power_state.RUNNING


def test_rescue_without_a_disk_is_refused(conf, tmp_path):  # noqa: F811
    driver = _driver(conf, tmp_path, 'a')
    inst = _instance()
    with pytest.raises(exception.VirtDriverError, match='has no disk'):
        driver.rescue(inst, 'img', 'pw')
    assert not driver.rescue_path(inst.uuid).exists()


def test_delete_removes_the_rescue_disk(conf, tmp_path):  # noqa: F811
    driver = _driver(conf, tmp_path, 'a')
    inst = _instance()
    driver.spawn(inst)
    driver.rescue(inst, 'img', 'pw')
    driver.destroy(inst)
    assert not driver.rescue_path(inst.uuid).exists()
    assert driver.list_instance_uuids() == []


def test_the_rescue_image_is_the_one_asked_or_the_servers():
    inst = types.SimpleNamespace(
        image_ref='current', system_metadata={'image_base_image_ref': 'base'}
    )
    assert rescue.rescue_image(inst, 'asked') == 'asked'
    assert rescue.rescue_image(inst, None) == 'base'
    inst.system_metadata = {}
    assert rescue.rescue_image(inst, None) == 'current'
