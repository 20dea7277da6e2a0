"""sushy-tools' Redfish emulator (``sushy-emulator --fake``) as a
process on 127.0.0.1, with fake systems of our choosing: the BMC the
redfish hardware type's tests drive. Its fake systems apply power
changes after a delay, as real BMCs do, asynchronously: 0.2 to 1 s by
default (the emulator run by :mod:`stacklite.redfish_bmc`, its fake
driver's delay set), 1 to 11 s with ``power_delay=None`` (the stock
``sushy-emulator``).

Each system also has a storage controller with one drive (the
emulator's static storage: readable, no volumes with the fake driver)
and, with ``plus=True``, a BIOS, firmware versions, processors and
memory (:mod:`ironic_lite.tests.redfish_fake_plus`: the stock fake
driver has none of these)."""

import json
from pathlib import Path
import shutil
import signal
import subprocess
import sys
import time
from typing import Any
import urllib.request

from lite_common.tests import ports


def system(index: int, power_state: str = 'Off') -> dict[str, Any]:
    return {
        'uuid': f'27946b59-9e44-4fa7-8e91-{index:012d}',
        'name': f'fake-{index}',
        'power_state': power_state,
        'nics': [
            {
                'mac': f'52:54:00:12:34:{index:02x}',
                'ip': f'172.22.0.{100 + index}',
            },
            {
                'mac': f'52:54:00:12:35:{index:02x}',
                'ip': f'172.23.0.{100 + index}',
            },
        ],
        # Read by the plus driver only.
        'memory_gib': 16,
        'processors': [
            {
                'id': f'CPU{n}',
                'Id': f'CPU{n}',
                'socket': f'CPU {n}',
                'model': 'Fake CPU',
                'vendor': 'Intel(R) Corporation',
                'cores': 4,
                'threads': 8,
            }
            for n in (0, 1)
        ],
    }


def _storage(systems: list[dict[str, Any]]) -> str:
    """The emulator's static storage config: a controller and a 100 GB
    disk per system (python literals: the drives are keyed by tuples)."""
    storage = {
        s['uuid']: [
            {
                'Id': '1',
                'Name': 'Local Storage Controller',
                'StorageControllers': [
                    {'MemberId': '0', 'Name': 'Contoso RAID', 'SpeedGbps': 12}
                ],
                'Drives': ['disk0'],
            }
        ]
        for s in systems
    }
    drives = {
        (s['uuid'], '1'): [
            {
                'Id': 'disk0',
                'Name': 'Drive 0',
                'CapacityBytes': 100 * 1024**3,
                'Protocol': 'SATA',
            }
        ]
        for s in systems
    }
    return (
        f'SUSHY_EMULATOR_STORAGE = {storage!r}\n'
        f'SUSHY_EMULATOR_DRIVES = {drives!r}\n'
    )


class Emulator:
    """Start with :meth:`start`, always :meth:`stop`."""

    def __init__(
        self,
        workdir: Path,
        systems: list[dict[str, Any]],
        plus: bool = False,
        power_delay: tuple[float, float] | None = (0.2, 1.0),
    ) -> None:
        """``power_delay``: the seconds (a random value in the range) a
        power change takes; None: the stock ``sushy-emulator`` (1 to 11
        s; with ``plus``, 1 to 3 s)."""
        self.workdir = Path(workdir)
        self.systems = systems
        self.plus = plus
        self.power_delay = power_delay
        self.port = ports.free_port()
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
            'SUSHY_EMULATOR_FAKE_DRIVER = True\n'
            "SUSHY_EMULATOR_LISTEN_IP = '127.0.0.1'\n"
            f'SUSHY_EMULATOR_STATE_DIR = {str(self.workdir / "state")!r}\n'
            f'SUSHY_EMULATOR_FAKE_SYSTEMS = {json.dumps(self.systems)}\n'
            + _storage(self.systems)
            + (
                f'STACKLITE_POWER_DELAY = {self.power_delay!r}\n'
                if self.power_delay is not None
                else ''
            )
        )
        log = open(self.workdir / 'emulator.log', 'ab')
        self.popen = subprocess.Popen(
            [
                *self._command(),
                '--config',
                str(config),
                '--port',
                str(self.port),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(
                    self.address + '/redfish/v1/Systems', timeout=2
                ):
                    return self
            except OSError:
                if self.popen.poll() is not None or (
                    time.monotonic() > deadline
                ):
                    self.stop()
                    raise RuntimeError(
                        'sushy-emulator did not start; see '
                        f'{self.workdir / "emulator.log"}'
                    ) from None
                time.sleep(0.2)

    def _command(self) -> list[str]:
        if self.plus:
            return [
                sys.executable,
                '-m',
                'ironic_lite.tests.redfish_fake_plus',
            ]
        if self.power_delay is not None:
            # The stock fake driver, its power delay set.
            return [sys.executable, '-m', 'stacklite.redfish_bmc']
        binary = Path(sys.executable).with_name('sushy-emulator')
        if not binary.exists():
            found = shutil.which('sushy-emulator')
            if found is None:
                raise RuntimeError(
                    'sushy-emulator is not installed: run '
                    'tools/setup-venv.sh --test'
                )
            binary = Path(found)
        return [str(binary)]

    def get(self, path: str) -> dict[str, Any]:
        """A resource of the emulator, as JSON."""
        with urllib.request.urlopen(self.address + path, timeout=5) as answer:
            return dict(json.load(answer))

    def power_state(self, index: int) -> str:
        with urllib.request.urlopen(
            self.address + self.system_path(index), timeout=5
        ) as answer:
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
