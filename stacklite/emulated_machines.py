"""Emulated bare metal machines: a Redfish BMC (sushy-tools'
``sushy-emulator`` with its fake systems driver, whose power changes
take 1 to 3 s: :mod:`stacklite.redfish_bmc`) and, per machine, an
``ironic-lite-agent`` process whose block devices are disk image files.

Used by ``stacklite-aio --baremetal-emulate N``
(:mod:`stacklite.baremetal_emulate`), the integration tests and
benchmarks/baremetal_emulated.py. Every process started here is a
child of the caller and is ended by :meth:`EmulatedMachines.stop`.

The machines of a work directory outlive the process that runs them as
real machines outlive their control plane: their disk files and the
emulator's state stay, and the emulator listens on the port it had
before (``emulator.port``, taken again when free), so the nodes'
``redfish_address`` stays right. Each process is recorded in a pid file
(:mod:`stacklite.pidfiles`); :meth:`EmulatedMachines.start` stops those
a killed predecessor left running before it starts new ones, so that
two agents never share a disk file or a MAC address, and refuses while
another live process holds the work directory's lock.
"""

import dataclasses
import importlib.util
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

from stacklite import pidfiles

MIB = 1024 * 1024
EMULATOR_PIDFILE = 'emulator.pid'
AGENT_PIDFILE = 'agent.pid'
PORT_FILE = 'emulator.port'
#: Ports tried when others take the chosen ones first.
EMULATOR_PORT_ATTEMPTS = 5
#: Where a disk file has the signatures erase_devices_metadata wipes:
#: the GPT header (LBA 1), an ext4 superblock magic, the backup GPT
#: header (the last 512 bytes), and data in the middle.
SIGNATURES = ((512, b'EFI PART'), (1080, b'\x53\xef'))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int) -> bool:
    """Nothing listens on ``port`` (connections of a stopped emulator
    waiting out TIME_WAIT do not count: it binds with SO_REUSEADDR)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(('127.0.0.1', port))
        except OSError:
            return False
        return True


def stable_port(path: Path) -> int:
    """The port recorded in ``path`` when it is free, else a free one
    (recorded)."""
    try:
        port = int(path.read_text())
    except (OSError, ValueError):
        port = 0
    if not (0 < port < 65536 and port_is_free(port)):
        port = free_port()
        path.write_text(f'{port}\n')
    return port


def binary(name: str) -> str:
    """A console script of this virtualenv (or of the PATH)."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f'{name} is not installed')
    return found


def make_disk(path: Path, size: int) -> Path:
    """A sparse disk file of ``size`` bytes with partition table and
    filesystem signatures and some data: what the agent's clean steps
    erase."""
    with path.open('wb') as handle:
        handle.truncate(size)
        for offset, data in SIGNATURES:
            handle.seek(offset)
            handle.write(data)
        handle.seek(size // 2)
        handle.write(b'precious data')
        handle.seek(size - 512)
        handle.write(b'EFI PART')
    path.chmod(0o600)
    return path


def machine(index: int) -> dict[str, Any]:
    """Fake system ``index`` (1-based) of the emulator."""
    return {
        'uuid': f'5d6bd5a2-1c4e-4f0a-9b7e-{index:012d}',
        'name': f'emulated-{index}',
        'power_state': 'Off',
        'nics': [
            {
                'mac': mac_of(index),
                'ip': f'172.22.{index // 250}.{index % 250 + 2}',
            }
        ],
    }


def mac_of(index: int) -> str:
    """A distinct MAC address per machine (up to 2**24 of them)."""
    return '52:54:01:' + ':'.join(
        f'{(index >> shift) & 255:02x}' for shift in (16, 8, 0)
    )


class Child:
    """A child process logging to a file, recorded in ``pidfile``."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        log: Path,
        pidfile: Path | None = None,
    ) -> None:
        self.name = name
        self.argv = argv
        self.log = log
        self.pidfile = pidfile
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> 'Child':
        with self.log.open('ab') as out:
            self.popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        if self.pidfile is not None:
            pidfiles.write(self.pidfile, self.popen.pid)
        return self

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL (a crash) and reap."""
        if self.popen is not None:
            if self.popen.poll() is None:
                self.popen.kill()
            self.popen.wait(timeout=10)
            self._forget()

    def terminate(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)

    def wait_ended(self, timeout: float) -> None:
        if self.popen is None:
            return
        try:
            self.popen.wait(timeout=timeout)
            self._forget()
        except subprocess.TimeoutExpired:
            self.kill()

    def _forget(self) -> None:
        if self.pidfile is not None:
            self.pidfile.unlink(missing_ok=True)


@dataclasses.dataclass(frozen=True)
class LogRotation:
    """oslo.log's rotation by size, for an agent's log file."""

    max_size_mb: int
    max_files: int

    def config(self) -> str:
        return (
            '[DEFAULT]\nlog_rotation_type = size\n'
            f'max_logfile_size_mb = {self.max_size_mb}\n'
            f'max_logfile_count = {self.max_files}\n'
        )


class Agent(Child):
    """``ironic-lite-agent`` of one machine; its log rotated as
    ``log_rotation`` says (None: not rotated)."""

    def __init__(
        self,
        workdir: Path,
        api_url: str,
        mac: str,
        disks: list[Path],
        heartbeat_interval: float,
        lookup_interval: float = 1.0,
        log_rotation: LogRotation | None = None,
        listen_port: int = 0,
    ) -> None:
        """``listen_port`` 0: the agent's command API binds a port the
        kernel chooses (no race with other processes) and reports it."""
        self.log_file = workdir / 'agent.log'
        logging_options = []
        if log_rotation is not None:
            path = workdir / 'agent-logging.conf'
            path.write_text(log_rotation.config())
            logging_options = ['--config-file', str(path)]
        super().__init__(
            workdir.name,
            [
                binary('ironic-lite-agent'),
                '--api_url',
                api_url,
                '--mac_addresses',
                mac,
                '--disk_files',
                ','.join(str(d) for d in disks),
                '--listen_port',
                str(listen_port),
                '--heartbeat_interval',
                str(heartbeat_interval),
                '--lookup_interval',
                str(lookup_interval),
                '--shred_random_overwrite_iterations',
                '0',
                # The machine's rescue environment: in its directory.
                '--rescue_password_file',
                str(workdir / 'rescue' / 'ipa-rescue-password'),
                '--log-file',
                str(self.log_file),
                *logging_options,
            ],
            workdir / 'agent.out',
            workdir / AGENT_PIDFILE,
        )
        self.disks = disks

    def steps_run(self) -> list[str]:
        """The clean steps this agent ran, from its log."""
        marker = 'Executing clean step '
        text = self.log_file.read_text() if self.log_file.exists() else ''
        return [
            line.split(marker, 1)[1].strip()
            for line in text.splitlines()
            if marker in line
        ]


def emulator_config(state: Path, systems: list[dict[str, Any]]) -> str:
    return (
        'SUSHY_EMULATOR_FAKE_DRIVER = True\n'
        "SUSHY_EMULATOR_LISTEN_IP = '127.0.0.1'\n"
        f'SUSHY_EMULATOR_STATE_DIR = {str(state)!r}\n'
        f'SUSHY_EMULATOR_FAKE_SYSTEMS = {json.dumps(systems)}\n'
    )


class EmulatedMachines:
    """N machines behind one Redfish emulator, one agent each."""

    def __init__(
        self,
        workdir: Path,
        count: int,
        api_url: str,
        disk_size: int = 4 * MIB,
        heartbeat_interval: float = 2.0,
        agents: int | None = None,
        lookup_interval: float = 1.0,
        log_rotation: LogRotation | None = None,
        emulator_port: int | None = None,
        agent_ports: int | None = None,
    ) -> None:
        """``agents``: machines with an agent process, the first ones
        (default: all); ``log_rotation``: of the agents' logs;
        ``emulator_port``: the emulator's port (default: its port of
        before when free, else a free one); ``agent_ports``: the first
        agent's port, the others' following it (default: ports the
        kernel chooses)."""
        self.emulator_port = emulator_port
        self.agent_ports = agent_ports
        self.workdir = Path(workdir)
        self.systems = [machine(n) for n in range(1, count + 1)]
        self.agent_count = count if agents is None else min(agents, count)
        self.lookup_interval = lookup_interval
        self.log_rotation = log_rotation
        self.api_url = api_url
        self.disk_size = disk_size
        self.heartbeat_interval = heartbeat_interval
        #: The emulator's port, chosen by :meth:`start`.
        self.port = 0
        self.emulator: Child | None = None
        self.agents: list[Agent] = []
        #: "name (pid N)" of each process a killed predecessor had left
        #: running, stopped by :meth:`start`.
        self.orphans_stopped: list[str] = []
        self._lock = pidfiles.DirectoryLock(self.workdir / 'machines.lock')

    @property
    def address(self) -> str:
        return f'http://127.0.0.1:{self.port}'

    def driver_info(self, index: int) -> dict[str, str]:
        """The driver_info of machine ``index`` (0-based)."""
        return {
            'redfish_address': self.address,
            'redfish_system_id': (
                f'/redfish/v1/Systems/{self.systems[index]["uuid"]}'
            ),
            'redfish_username': 'admin',
            'redfish_password': 'admin',
            'redfish_verify_ca': 'false',
        }

    def mac(self, index: int) -> str:
        return str(self.systems[index]['nics'][0]['mac'])

    def start(self, timeout: float = 60) -> 'EmulatedMachines':
        """Stop what a killed predecessor left running, then start the
        emulator (on its port of before when free) and the agents.

        :raises RuntimeError: another live process runs these machines,
            or the emulator did not start.
        """
        self.workdir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._lock.acquire()
        try:
            self.orphans_stopped = self._stop_orphans()
            self._start_emulator(timeout)
            for index in range(self.agent_count):
                agent = self._agent(index)
                agent.start()
                self.agents.append(agent)
        except BaseException:
            self.stop()
            raise
        return self

    def _stop_orphans(self) -> list[str]:
        """Stop the recorded processes that still run (agents first:
        they call the emulator's machines' API, not the emulator)."""
        stopped = []
        for path in [
            *sorted(self.workdir.glob(f'agent-*/{AGENT_PIDFILE}')),
            self.workdir / EMULATOR_PIDFILE,
        ]:
            pid = pidfiles.stop_recorded(path)
            if pid is not None:
                name = (
                    path.parent.name
                    if path.name == AGENT_PIDFILE
                    else 'sushy-emulator'
                )
                stopped.append(f'{name} (pid {pid})')
        return stopped

    def _start_emulator(self, timeout: float) -> None:
        """On the set port, or on a chosen one: the port of before when
        free, else a free one; should another process bind the chosen
        port before the emulator does, on another (bounded)."""
        if importlib.util.find_spec('sushy_tools') is None:
            raise RuntimeError(
                'sushy-emulator is not installed (pip install sushy-tools)'
            )
        config = self.workdir / 'emulator.conf'
        config.write_text(
            emulator_config(self.workdir / 'emulator-state', self.systems)
        )
        for _attempt in range(EMULATOR_PORT_ATTEMPTS):
            if self.emulator_port is not None:
                self.port = self.emulator_port
            else:
                self.port = stable_port(self.workdir / PORT_FILE)
            log = self.workdir / 'emulator.log'
            offset = log.stat().st_size if log.exists() else 0
            self.emulator = Child(
                'sushy-emulator',
                [
                    sys.executable,
                    '-m',
                    'stacklite.redfish_bmc',
                    '--config',
                    str(config),
                    '--port',
                    str(self.port),
                ],
                log,
                self.workdir / EMULATOR_PIDFILE,
            ).start()
            if self._wait_answering(timeout):
                return
            if not self._port_was_taken(offset):
                raise RuntimeError(
                    f'sushy-emulator did not start; see {self.emulator.log}'
                )
            if self.emulator_port is not None:
                raise RuntimeError(
                    f'sushy-emulator cannot listen on 127.0.0.1:{self.port}'
                    ': the address is in use (choose another port)'
                )
            (self.workdir / PORT_FILE).unlink(missing_ok=True)
        raise RuntimeError(
            f'sushy-emulator found no free port in '
            f'{EMULATOR_PORT_ATTEMPTS} attempts; see '
            f'{self.workdir / "emulator.log"}'
        )

    def _wait_answering(self, timeout: float) -> bool:
        """The emulator answers (True) or has ended (False); a
        RuntimeError if it does neither within ``timeout``."""
        assert self.emulator is not None
        deadline = time.monotonic() + timeout
        while not self._answers():
            if not self.emulator.alive():
                return False
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f'sushy-emulator did not start; see {self.emulator.log}'
                )
            time.sleep(0.2)
        return True

    def _port_was_taken(self, offset: int) -> bool:
        """The emulator that just ended (its log from ``offset``) could
        not bind its port."""
        assert self.emulator is not None
        with self.emulator.log.open('rb') as handle:
            handle.seek(offset)
            return b'Address already in use' in handle.read()

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(
                self.address + '/redfish/v1/Systems', timeout=2
            ):
                return True
        except OSError:
            return False

    def _agent(self, index: int) -> Agent:
        workdir = self.workdir / f'agent-{index + 1}'
        workdir.mkdir(mode=0o700, exist_ok=True)
        disk = workdir / 'sda.img'
        if not disk.exists():
            make_disk(disk, self.disk_size)
        port = 0 if self.agent_ports is None else self.agent_ports + index
        return Agent(
            workdir,
            self.api_url,
            self.mac(index),
            [disk],
            self.heartbeat_interval,
            self.lookup_interval,
            self.log_rotation,
            listen_port=port,
        )

    def restart_agent(self, index: int) -> Agent:
        """Start machine ``index``'s agent again (after a kill)."""
        self.agents[index].kill()
        agent = self.agents[index] = self._agent(index)
        agent.start()
        return agent

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM every process, SIGKILL what did not end in time."""
        children: list[Child] = [
            *self.agents,
            *([self.emulator] if self.emulator else []),
        ]
        for child in children:
            child.terminate()
        deadline = time.monotonic() + timeout
        for child in children:
            child.wait_ended(max(0.1, deadline - time.monotonic()))
        self.agents = []
        self.emulator = None
        self._lock.release()


def disk_is_erased(path: Path) -> bool:
    """Every byte of the file is zero (read in 1 MiB pieces)."""
    zeros = bytes(MIB)
    with path.open('rb') as handle:
        while chunk := handle.read(MIB):
            if chunk != zeros[: len(chunk)]:
                return False
    return True


def serving(agent: Agent) -> bool:
    """The agent's command API is up (its log says so)."""
    return (
        agent.log_file.exists() and 'serving on' in agent.log_file.read_text()
    )


def stamp_disk(path: Path) -> None:
    """Signatures and data again (as a deployed image would leave)."""
    make_disk(path, path.stat().st_size)
