"""sushy-tools' Redfish emulator (``sushy-emulator --fake``) as a
process on 127.0.0.1, with fake systems of our choosing: the BMC the
redfish hardware type's tests drive. Its fake systems apply power
changes after 1 to 11 s, as real BMCs do, asynchronously."""

import json
from pathlib import Path
import shutil
import signal
import socket
import subprocess
import sys
import time
from typing import Any
import urllib.request


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return int(sock.getsockname()[1])


def system(index: int, power_state: str = 'Off') -> dict[str, Any]:
    return {'uuid': f'27946b59-9e44-4fa7-8e91-{index:012d}',
            'name': f'fake-{index}', 'power_state': power_state,
            'nics': [{'mac': f'52:54:00:12:34:{index:02x}',
                      'ip': f'172.22.0.{100 + index}'}]}


class Emulator:
    """Start with :meth:`start`, always :meth:`stop`."""

    def __init__(self, workdir: Path, systems: list[dict[str, Any]]) -> None:
        self.workdir = Path(workdir)
        self.systems = systems
        self.port = _free_port()
        self.popen: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f'http://127.0.0.1:{self.port}'

    def system_path(self, index: int) -> str:
        return f'/redfish/v1/Systems/{self.systems[index]["uuid"]}'

    def start(self, timeout: float = 30) -> 'Emulator':
        self.workdir.mkdir(parents=True, exist_ok=True)
        config = self.workdir / 'emulator.conf'
        config.write_text(
            "SUSHY_EMULATOR_FAKE_DRIVER = True\n"
            "SUSHY_EMULATOR_LISTEN_IP = '127.0.0.1'\n"
            f"SUSHY_EMULATOR_STATE_DIR = {str(self.workdir / 'state')!r}\n"
            f"SUSHY_EMULATOR_FAKE_SYSTEMS = {json.dumps(self.systems)}\n")
        binary = Path(sys.executable).with_name('sushy-emulator')
        if not binary.exists():
            found = shutil.which('sushy-emulator')
            if found is None:
                raise RuntimeError('sushy-emulator is not installed: run '
                                   'tools/setup-venv.sh --test')
            binary = Path(found)
        log = open(self.workdir / 'emulator.log', 'ab')
        self.popen = subprocess.Popen(
            [str(binary), '--config', str(config), '--port', str(self.port)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(
                        self.address + '/redfish/v1/Systems', timeout=2):
                    return self
            except OSError:
                if self.popen.poll() is not None or (
                        time.monotonic() > deadline):
                    self.stop()
                    raise RuntimeError(
                        'sushy-emulator did not start; see '
                        f'{self.workdir / "emulator.log"}') from None
                time.sleep(0.2)

    def power_state(self, index: int) -> str:
        with urllib.request.urlopen(self.address + self.system_path(index),
                                    timeout=5) as answer:
            return str(json.load(answer)['PowerState'])

    def pause(self) -> None:
        assert self.popen is not None
        self.popen.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.popen is not None
        self.popen.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.popen is None:
            return
        self.popen.send_signal(signal.SIGCONT)
        self.popen.terminate()
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
        self.popen = None
