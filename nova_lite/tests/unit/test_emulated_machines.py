"""The helpers of ``stacklite-aio --baremetal-emulate`` that need no
process: disk files, machine identities, the emulator's configuration
and the command line."""

from pathlib import Path

import pytest

from stacklite import aio
from stacklite import emulated_machines as machines


def test_a_new_disk_holds_signatures_and_data(tmp_path: Path) -> None:
    disk = machines.make_disk(tmp_path / 'sda.img', 3 * machines.MIB)
    data = disk.read_bytes()
    assert len(data) == 3 * machines.MIB
    assert data[512:520] == b'EFI PART'
    assert data[-512:-504] == b'EFI PART'
    assert b'precious data' in data
    assert not machines.disk_is_erased(disk)


def test_only_zeros_are_erased(tmp_path: Path) -> None:
    disk = tmp_path / 'sda.img'
    disk.write_bytes(bytes(machines.MIB + 7))
    assert machines.disk_is_erased(disk)
    with disk.open('r+b') as handle:
        handle.seek(machines.MIB + 6)
        handle.write(b'\x01')
    assert not machines.disk_is_erased(disk)
    machines.stamp_disk(disk)
    assert disk.stat().st_size == machines.MIB + 7
    assert b'precious data' in disk.read_bytes()


def test_machines_have_distinct_identities() -> None:
    systems = [machines.machine(n) for n in range(1, 1001)]
    assert len({s['uuid'] for s in systems}) == 1000
    assert len({s['nics'][0]['mac'] for s in systems}) == 1000
    assert machines.mac_of(258) == '52:54:01:00:01:02'


def test_emulator_config_lists_the_systems(tmp_path: Path) -> None:
    systems = [machines.machine(1), machines.machine(2)]
    values: dict = {}
    exec(machines.emulator_config(tmp_path, systems), values)
    assert values['SUSHY_EMULATOR_FAKE_SYSTEMS'] == systems
    assert values['SUSHY_EMULATOR_FAKE_DRIVER'] is True


@pytest.mark.parametrize('argv', [
    ['--baremetal-emulate', '-1'],
    ['--baremetal-emulate', '2', '--no-baremetal']])
def test_bad_emulate_options_are_refused(argv: list[str],
                                         tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        aio.parse_args(['--state-dir', str(tmp_path), *argv])


def test_emulate_option_is_parsed(tmp_path: Path) -> None:
    args = aio.parse_args(['--state-dir', str(tmp_path),
                           '--baremetal-emulate', '3'])
    assert args.baremetal_emulate == 3
