"""``stacklite-aio --baremetal-emulate 1``: a Redfish emulator and an
ironic-lite-agent process beside the all-in-one; the emulated machine,
enrolled as a ``redfish`` node with the ``agent`` deploy interface, is
managed and provided with the ``openstack baremetal`` CLI, goes through
``clean wait`` while its agent erases its disk file, and ends
``available``; then ``openstack server create --flavor baremetal`` with
a key, user data and a config drive deploys the server's image onto the
machine's disk file, the config drive in a partition at its end. The
emulator and the agent stop with the all-in-one."""

from pathlib import Path
import random
import subprocess
import time
from typing import Any

import devstack_support as support
import pytest

from ironic_lite.tests import disk_images
from nova_lite.tests.integration import allinone
from nova_lite.tests.integration import runnable
from stacklite import emulated_machines

pytestmark = pytest.mark.integration
NODE = 'emulated-1'
MIB = 1024 * 1024
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope='module')
def aio(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Any:
    with allinone.running(
        request,
        tmp_path_factory,
        'aio-emulate',
        computes=0,
        extra_args=('--baremetal-emulate', '1'),
        state='stacklite-state',  # the README's name
    ) as cloud:
        yield cloud
    assert _children_of(cloud.state_dir) == [], 'left running'


def _children_of(state: Path) -> list[str]:
    """Command lines of processes that name the state directory."""
    found = []
    for proc in Path('/proc').iterdir():
        try:
            argv = (proc / 'cmdline').read_bytes().replace(b'\0', b' ')
        except OSError:
            continue
        if str(state).encode() in argv:
            found.append(argv.decode(errors='replace'))
    return found


def _node(aio: Any) -> dict[str, Any] | None:
    return aio.baremetal_node(NODE)


def test_emulated_node_is_cleaned_by_its_agent(aio: Any) -> None:
    enrolled = support.wait_for(lambda: _node(aio), 60, f'{NODE} enrolled')
    assert (
        enrolled['driver'],
        enrolled['deploy_interface'],
        enrolled['provision_state'],
    ) == ('redfish', 'agent', 'enroll')
    assert len(_children_of(aio.state_dir)) >= 3  # aio, emulator, agent
    aio.openstack(
        'baremetal', 'node', 'manage', NODE, '--wait', '90', parse=False
    )
    aio.openstack('baremetal', 'node', 'provide', NODE, parse=False)
    seen: list[str] = []
    deadline = time.monotonic() + 180
    while not seen or seen[-1] not in ('available', 'clean failed'):
        assert time.monotonic() < deadline, seen
        state = (_node(aio) or {}).get('provision_state', '?')
        if not seen or seen[-1] != state:
            seen.append(state)
        time.sleep(0.2)
    assert seen[-1] == 'available', (seen, _node(aio))
    assert 'clean wait' in seen, seen
    disk = aio.state_dir / 'emulated' / 'agent-1' / 'sda.img'
    assert emulated_machines.disk_is_erased(disk)
    assert (_node(aio) or {})['last_error'] is None


def test_the_readmes_emulated_machine_example_runs(aio: Any) -> None:
    """The README's blocks for ``--baremetal-emulate 1``, as written:
    the machine cleaned, a server's image deployed onto its disk."""
    readme = (ROOT / 'README.rst').read_text()
    blocks = runnable.runnable_blocks(readme, runnable.EMULATED)
    assert blocks, 'no .. runnable-emulated block in README.rst'
    proc = runnable.run_blocks(blocks, aio.state_dir.parent)
    assert proc.returncode == 0, (
        f'a README example failed:\n{proc.stderr[-4000:]}'
    )
    assert 'the image is on the disk of emulated-1' in proc.stdout
    aio.openstack('server', 'delete', '--wait', 'bm-vm', parse=False)
    deadline = time.monotonic() + 180
    while (_node(aio) or {}).get('provision_state') != 'available':
        assert time.monotonic() < deadline, _node(aio)
        time.sleep(0.5)


def _boot_when_offered(aio: Any, *args: str) -> dict[str, Any]:
    """``server create`` once the node is offered again: the ironic
    agent reports the nodes every 5 s, and a boot before the report
    after a cleaning finds no valid host (ERROR: deleted, tried again).
    """

    def booted() -> dict[str, Any] | None:
        server = aio.openstack('server', 'create', *args)
        server = support.wait_for(
            lambda: _built(aio, server['id']), 300, 'a build', interval=1
        )
        if server['status'] == 'ACTIVE':
            return dict(server)
        aio.openstack('server', 'delete', '--wait', server['id'], parse=False)
        return None

    return dict(support.wait_for(booted, 360, 'ACTIVE', interval=2))


def _built(aio: Any, server_id: str) -> dict[str, Any] | None:
    shown = aio.openstack('server', 'show', server_id)
    return shown if shown['status'] in ('ACTIVE', 'ERROR') else None


def test_a_server_boots_on_the_emulated_machine_with_its_config_drive(
    aio: Any, tmp_path: Path
) -> None:
    """The two halves together, as the issue types it: the image's bytes
    at the start of the machine's disk file, a config-2 partition at its
    end naming the server and its key."""
    assert (_node(aio) or {})['provision_state'] == 'available'
    image = disk_images.partitioned(tmp_path / 'disk.img', 'dos', [3], 4 * MIB)
    data = image.read_bytes()
    aio.openstack(
        'image',
        'create',
        '--disk-format',
        'raw',
        '--container-format',
        'bare',
        '--file',
        str(image),
        'cd-image',
        parse=False,
    )
    key = tmp_path / 'key'
    subprocess.run(
        ['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(key)],
        check=True,
    )
    aio.openstack(
        'keypair', 'create', '--public-key', f'{key}.pub', 'k', parse=False
    )
    user_data = tmp_path / 'user-data'
    user_data.write_text('#cloud-config\nhostname: bm-vm\n')
    server = _boot_when_offered(
        aio,
        '--flavor', 'baremetal', '--image', 'cd-image', '--key-name', 'k',
        '--user-data', str(user_data), '--config-drive', 'True',
        '--no-network', 'cd-vm',
    )  # fmt: skip
    node = _node(aio) or {}
    assert (node['provision_state'], node['instance_uuid']) == (
        'active',
        server['id'],
    ), node
    disk = aio.state_dir / 'emulated' / 'agent-1' / 'sda.img'
    written = disk.read_bytes()
    # The image, but for the MBR's partition entries (one was added).
    assert written[:446] == data[:446]
    assert written[512 : len(data)] == data[512:]
    first, drive = disk_images.table(disk)['partitions']
    assert (drive['start'] + drive['size']) * 512 == len(written)
    meta = disk_images.meta_data(disk, drive)
    assert meta['uuid'] == server['id']
    assert meta['name'] == 'cd-vm'
    assert list(meta['public_keys']) == ['k']
    assert meta['public_keys']['k'].strip() == (
        Path(f'{key}.pub').read_text().strip()
    )
    assert (
        disk_images.iso_file(disk, drive, '/openstack/latest/user_data')
        == user_data.read_bytes()
    )

    # A rebuild writes the new image (qcow2 here: its raw content) and
    # the config drive again.
    raw = disk_images.partitioned(tmp_path / 'new.img', 'dos', [2], 3 * MIB)
    with raw.open('r+b') as handle:
        handle.seek(MIB + 4096)
        handle.write(random.Random(7).randbytes(64 * 1024))
    new_data = raw.read_bytes()
    aio.openstack(
        'image', 'create', '--disk-format', 'qcow2', '--container-format',
        'bare', '--file', str(disk_images.qcow2_of(raw)), 'cd-image-2',
        parse=False,
    )  # fmt: skip
    aio.openstack(
        'server', 'rebuild', '--image', 'cd-image-2', '--wait', 'cd-vm',
        parse=False, timeout=600,
    )  # fmt: skip
    written = disk.read_bytes()
    assert written[:446] == new_data[:446]
    assert written[512 : len(new_data)] == new_data[512:]
    _first, drive = disk_images.table(disk)['partitions']
    assert disk_images.meta_data(disk, drive)['uuid'] == server['id']
