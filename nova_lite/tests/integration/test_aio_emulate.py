"""``stacklite-aio --baremetal-emulate 1``: a Redfish emulator and an
ironic-lite-agent process beside the all-in-one; the emulated machine,
enrolled as a ``redfish`` node with the ``agent`` deploy interface, is
managed and provided with the ``openstack baremetal`` CLI, goes through
``clean wait`` while its agent erases its disk file, and ends
``available``. The emulator and the agent stop with the all-in-one."""

from pathlib import Path
import time
from typing import Any

import devstack_support as support
import pytest

from nova_lite.tests.integration import allinone
from stacklite import emulated_machines

pytestmark = pytest.mark.integration
NODE = 'emulated-1'


@pytest.fixture(scope='module')
def aio(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Any:
    with allinone.running(
        request,
        tmp_path_factory,
        'aio-emulate',
        computes=0,
        extra_args=('--baremetal-emulate', '1'),
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
