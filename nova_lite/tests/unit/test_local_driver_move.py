"""The local driver's side of a cold migration or resize, on real files:
the disk is copied sparsely, the source keeps its copy aside until
confirm or revert, and an interrupted send is put back."""

from pathlib import Path
import types
from typing import Any

from oslo_config import cfg
import pytest

from nova_lite import exception
from nova_lite.virt import local


def _driver(conf: cfg.ConfigOpts, root: Path, host: str) -> local.LocalDriver:
    driver = local.LocalDriver(conf, host, str(root / host))
    driver.init_host()
    return driver


def _head(path: Path) -> bytes:
    with open(path, 'rb') as disk:
        return disk.read(40)


def _instance(uuid: str = '11111111-2222-3333-4444-555555555555') -> Any:
    return types.SimpleNamespace(uuid=uuid, image_ref='img', root_gb=1)


def test_move_confirm(conf, tmp_path):
    src, dst = _driver(conf, tmp_path, 'a'), _driver(conf, tmp_path, 'b')
    inst = _instance()
    src.spawn(inst)
    header = _head(src.disk_path(inst.uuid))
    src.migrate_disk_and_power_off(inst, 'b', dst.prepare_incoming(inst))
    copied = dst.disk_path(inst.uuid)
    assert _head(copied) == header
    assert copied.stat().st_size == 1024**3
    assert copied.stat().st_blocks * 512 < 4 * 1024**2  # still sparse
    assert src.list_instance_uuids() == []  # aside, not listed
    dst.finish_migration(inst, 2, power_on=True)
    assert copied.stat().st_size == 2 * 1024**3
    src.confirm_migration(inst)
    assert not src.aside_path(inst.uuid).exists()
    assert dst.list_instance_uuids() == [inst.uuid]


def test_move_revert_restores_the_source(conf, tmp_path):
    src, dst = _driver(conf, tmp_path, 'a'), _driver(conf, tmp_path, 'b')
    inst = _instance()
    src.spawn(inst)
    src.migrate_disk_and_power_off(inst, 'b', dst.prepare_incoming(inst))
    dst.destroy(inst)
    src.finish_revert_migration(inst, power_on=True)
    assert src.list_instance_uuids() == [inst.uuid]
    assert not dst.disk_path(inst.uuid).exists()
    assert not src.aside_path(inst.uuid).exists()


def test_same_host_resize_and_revert(conf, tmp_path):
    drv = _driver(conf, tmp_path, 'a')
    inst = _instance()
    drv.spawn(inst)
    drv.migrate_disk_and_power_off(inst, 'a', drv.prepare_incoming(inst))
    assert drv.disk_path(inst.uuid).is_file()
    assert drv.aside_path(inst.uuid).is_dir()
    drv.destroy(inst)  # the destination's revert step
    drv.finish_revert_migration(inst, power_on=True)
    assert drv.disk_path(inst.uuid).is_file()


def test_failed_copy_puts_the_disk_back(conf, tmp_path):
    src = _driver(conf, tmp_path, 'a')
    inst = _instance()
    src.spawn(inst)
    blocked = tmp_path / 'blocked'
    blocked.write_text('not a directory')
    with pytest.raises(exception.VirtDriverError):
        src.migrate_disk_and_power_off(
            inst, 'b', {'instances_path': str(blocked)}
        )
    assert src.disk_path(inst.uuid).is_file()
    assert not src.aside_path(inst.uuid).exists()


def test_abort_puts_back_only_what_is_missing(conf, tmp_path):
    src = _driver(conf, tmp_path, 'a')
    inst = _instance()
    src.spawn(inst)
    here = src.disk_path(inst.uuid).parent
    here.rename(src.aside_path(inst.uuid))
    src.abort_migration(inst)
    assert src.disk_path(inst.uuid).is_file()
    src.abort_migration(inst)  # nothing aside: nothing happens
    assert src.disk_path(inst.uuid).is_file()


def test_missing_disk_is_an_error(conf, tmp_path):
    dst = _driver(conf, tmp_path, 'b')
    with pytest.raises(exception.VirtDriverError, match='did not arrive'):
        dst.finish_migration(_instance(), 1, power_on=True)
