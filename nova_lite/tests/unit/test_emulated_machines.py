"""The helpers of ``stacklite-aio --baremetal-emulate``: disk files,
machine identities, the emulator's configuration and port, the command
line, and the pid files that find the processes a killed all-in-one
left (with ``sleep`` processes)."""

from pathlib import Path
import signal
import socket
import subprocess
import time

import pytest

from stacklite import aio
from stacklite import emulated_machines as machines
from stacklite import pidfiles


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


@pytest.mark.parametrize(
    'argv',
    [
        ['--baremetal-emulate', '-1'],
        ['--baremetal-emulate', '2', '--no-baremetal'],
        ['--baremetal-emulate', '1', '--baremetal-emulator-port', '0'],
        ['--baremetal-emulate', '1', '--baremetal-agent-ports', '70000'],
    ],
)
def test_bad_emulate_options_are_refused(
    argv: list[str], tmp_path: Path
) -> None:
    with pytest.raises(SystemExit):
        aio.parse_args(['--state-dir', str(tmp_path), *argv])


def test_emulate_option_is_parsed(tmp_path: Path) -> None:
    args = aio.parse_args(
        ['--state-dir', str(tmp_path), '--baremetal-emulate', '3']
    )
    assert args.baremetal_emulate == 3


def test_the_emulator_port_is_taken_again_while_free(tmp_path: Path) -> None:
    path = tmp_path / machines.PORT_FILE
    first = machines.stable_port(path)
    assert int(path.read_text()) == first
    assert machines.stable_port(path) == first
    with socket.socket() as holder:  # another process took it
        holder.bind(('127.0.0.1', first))
        holder.listen(1)
        moved = machines.stable_port(path)
    assert moved != first
    assert int(path.read_text()) == moved


def _held_port() -> socket.socket:
    holder = socket.socket()
    holder.bind(('127.0.0.1', 0))
    holder.listen(1)
    return holder


def test_a_port_taken_before_the_emulator_binds_it_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process binds the chosen port between the choice and the
    emulator's bind (the race, forced): the emulator (a real
    sushy-emulator) ends up on another port, which is recorded."""
    chooser = machines.stable_port
    with _held_port() as holder:
        taken = holder.getsockname()[1]
        calls: list[int] = []

        def choose(path: Path) -> int:
            calls.append(1)
            return taken if len(calls) == 1 else chooser(path)

        monkeypatch.setattr(machines, 'stable_port', choose)
        emulated = machines.EmulatedMachines(
            tmp_path, 1, 'http://127.0.0.1:9', agents=0
        ).start()
        try:
            assert len(calls) == 2
            assert emulated.port != taken
            assert emulated._answers()
            assert int((tmp_path / machines.PORT_FILE).read_text()) == (
                emulated.port
            )
        finally:
            emulated.stop()


def test_a_set_emulator_port_in_use_is_said(tmp_path: Path) -> None:
    with _held_port() as holder:
        port = holder.getsockname()[1]
        emulated = machines.EmulatedMachines(
            tmp_path, 1, 'http://127.0.0.1:9', agents=0, emulator_port=port
        )
        with pytest.raises(
            RuntimeError, match=f'cannot listen on 127.0.0.1:{port}'
        ):
            emulated.start(timeout=30)


def test_the_agents_listen_on_set_ports(tmp_path: Path) -> None:
    with _held_port() as holder:
        first = holder.getsockname()[1]
    emulated = machines.EmulatedMachines(
        tmp_path, 1, 'http://127.0.0.1:9', agent_ports=first
    ).start()
    try:
        deadline = time.monotonic() + 30
        while not machines.serving(emulated.agents[0]):
            assert time.monotonic() < deadline, 'the agent is not serving'
            time.sleep(0.1)
        log = emulated.agents[0].log_file.read_text()
        assert f':{first}' in log.split('serving on', 1)[1].splitlines()[0]
    finally:
        emulated.stop()


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen(['sleep', '60'], start_new_session=True)


def test_a_recorded_process_is_found_and_stopped(tmp_path: Path) -> None:
    child = _sleeper()
    path = tmp_path / 'child.pid'
    try:
        pidfiles.write(path, child.pid)
        assert pidfiles.running(path) == child.pid
        assert pidfiles.stop_recorded(path, timeout=5) == child.pid
        assert child.wait(5) == -signal.SIGTERM
        assert not path.exists()
        assert pidfiles.stop_recorded(path) is None
    finally:
        child.kill()
        child.wait(5)


def test_a_pid_reused_by_another_process_is_left_alone(tmp_path: Path) -> None:
    """The pid file names a process that ended; a new one got its pid
    (played by a start time that does not match)."""
    child = _sleeper()
    path = tmp_path / 'child.pid'
    try:
        started = pidfiles.start_time(child.pid)
        assert started is not None
        path.write_text(f'{child.pid} {started - 1}\n')
        assert pidfiles.running(path) is None
        assert pidfiles.stop_recorded(path) is None
        assert child.poll() is None
    finally:
        child.kill()
        child.wait(5)


def test_an_ended_process_is_not_running(tmp_path: Path) -> None:
    child = _sleeper()
    path = tmp_path / 'child.pid'
    pidfiles.write(path, child.pid)
    child.kill()
    child.wait(5)
    assert pidfiles.running(path) is None


def test_one_holder_of_the_machines_at_a_time(tmp_path: Path) -> None:
    first = pidfiles.DirectoryLock(tmp_path / 'machines.lock')
    second = pidfiles.DirectoryLock(tmp_path / 'machines.lock')
    first.acquire()
    try:
        with pytest.raises(RuntimeError, match='another stacklite-aio'):
            second.acquire()
    finally:
        first.release()
    second.acquire()
    second.release()
