"""Starting and stopping the two servers compared.

Upstream Ironic 39 (the oracle) runs from its own virtualenv as the
all-in-one ``ironic`` command (API and conductor in one service, no
RPC bus) with fake-hardware, noauth and SQLite; ironic_lite runs as
``stacklite-aio --computes 0`` (its Bare Metal API and one conductor
over the in-process bus, SQLite, noauth). Both get the same conductor
host name and the same enabled interfaces, in temporary state
directories.
"""

import os
from pathlib import Path
import signal
import subprocess
import time
import urllib.error
import urllib.request

#: The conductor host name on both sides (stacklite's own).
HOST = 'aio-conductor'

#: The interfaces enabled on both sides.
INTERFACES = """\
enabled_hardware_types = fake-hardware
enabled_bios_interfaces = fake,no-bios
enabled_boot_interfaces = fake
enabled_console_interfaces = fake,no-console
enabled_deploy_interfaces = fake
enabled_firmware_interfaces = fake,no-firmware
enabled_inspect_interfaces = fake,no-inspect
enabled_management_interfaces = fake
enabled_network_interfaces = noop,flat
default_network_interface = noop
enabled_power_interfaces = fake
enabled_raid_interfaces = fake,no-raid
enabled_rescue_interfaces = fake,no-rescue
enabled_storage_interfaces = noop,fake
enabled_vendor_interfaces = fake,no-vendor
"""

ORACLE_CONF = """\
[DEFAULT]
auth_strategy = noauth
rpc_transport = none
host = {host}
use_stderr = true
{interfaces}
[api]
host_ip = 127.0.0.1
port = {port}
[database]
connection = sqlite:///{state}/ironic.sqlite
[dhcp]
dhcp_provider = none
[oslo_concurrency]
lock_path = {state}/locks
"""

#: Every version upstream serves is compared, not only the complete
#: ones ironic_lite advertises by default.
LITE_CONF = """\
[DEFAULT]
{interfaces}
[api]
advertise_incomplete_versions = true
"""

INSTALL_HINT = (
    'create it with:\n'
    '  python3 -m venv {venv} && '
    '{venv}/bin/pip install ironic==39.0.0'
)


class ServerError(Exception):
    """A server that would not start."""


def oracle_config(state: Path, port: int) -> str:
    return ORACLE_CONF.format(
        host=HOST, interfaces=INTERFACES, port=port, state=state
    )


def check_oracle_venv(venv: Path) -> str:
    """The installed ironic version; ServerError saying how to create
    the virtualenv when it is missing."""
    for tool in ('ironic', 'ironic-dbsync', 'python'):
        if not (venv / 'bin' / tool).exists():
            raise ServerError(
                f'upstream Ironic is not installed in {venv} (no '
                f'bin/{tool}); ' + INSTALL_HINT.format(venv=venv)
            )
    out = subprocess.run(
        [
            str(venv / 'bin' / 'python'),
            '-c',
            'import importlib.metadata as m; print(m.version("ironic"))',
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip() or 'unknown'


class Server:
    """A process started in its own session, stopped with its group."""

    def __init__(
        self, label: str, argv: list[str], url: str, log: Path
    ) -> None:
        self.label, self.argv, self.url, self.log = label, argv, url, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 90.0) -> None:
        with open(self.log, 'ab') as out:
            self.proc = subprocess.Popen(
                self.argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerError(self._failure('exited'))
            try:
                with urllib.request.urlopen(self.url + '/', timeout=2):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        raise ServerError(self._failure(f'did not answer in {timeout}s'))

    def _failure(self, what: str) -> str:
        tail = self.log.read_text(errors='replace').splitlines()[-20:]
        return (
            f'{self.label} ({" ".join(self.argv)}) {what}; '
            f'end of {self.log}:\n' + '\n'.join(tail)
        )

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def oracle(venv: Path, state: Path, port: int) -> Server:
    """Upstream Ironic: configuration written, schema created."""
    state.mkdir(parents=True, exist_ok=True)
    conf = state / 'ironic.conf'
    conf.write_text(oracle_config(state, port))
    log = state / 'ironic.log'
    with open(log, 'ab') as out:
        done = subprocess.run(
            [
                str(venv / 'bin' / 'ironic-dbsync'),
                '--config-file',
                str(conf),
                'create_schema',
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )
    if done.returncode:
        raise ServerError(f'ironic-dbsync create_schema failed; see {log}')
    return Server(
        'upstream Ironic',
        [str(venv / 'bin' / 'ironic'), '--config-file', str(conf)],
        f'http://127.0.0.1:{port}',
        log,
    )


def lite(
    root: Path, venv: Path | None, state: Path, port: int, compute_port: int
) -> Server:
    """ironic_lite from this tree's virtualenv (stacklite-aio)."""
    state.mkdir(parents=True, exist_ok=True)
    conf = state / 'lite.conf'
    conf.write_text(LITE_CONF.format(interfaces=INTERFACES))
    venv = venv or root / '.venv'
    exe = venv / 'bin' / 'stacklite-aio'
    if not exe.exists():
        raise ServerError(f'{exe} is missing: run tools/setup-venv.sh')
    return Server(
        'ironic_lite',
        [
            str(exe),
            '--state-dir',
            str(state),
            '--noauth',
            '--computes',
            '0',
            '--api-port',
            str(compute_port),
            '--baremetal-port',
            str(port),
            '--no-networking',
            '--config-file',
            str(conf),
        ],
        f'http://127.0.0.1:{port}',
        state / 'stacklite.out',
    )
