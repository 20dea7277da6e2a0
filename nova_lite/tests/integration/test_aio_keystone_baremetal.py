"""``stacklite-aio --identity keystone --baremetal-nodes 1
--baremetal-emulate 1``: bare metal under Keystone. The all-in-one
enrolls its nodes as the system-scoped administrator (the
``stacklite-system`` cloud), the ironic virt driver reaches the Bare
Metal API with a token of the service user ``nova`` (``[ironic]
auth_type = password``, the endpoint from the catalog), which ironic_lite
lets act on the nodes (``rbac_service_role_elevated_access``), and a
server of the ``baremetal`` flavor is deployed on a node. The emulated
machine, enrolled the same way, is managed and provided with the CLI as
the system administrator and cleaned by its agent."""

from typing import Any

import devstack_support as support
import pytest

from nova_lite.tests.integration import allinone

pytestmark = pytest.mark.integration
SYSTEM = 'stacklite-system'
TIMEOUT = 90


@pytest.fixture(scope='module')
def aio(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Any:
    with allinone.running(
        request,
        tmp_path_factory,
        'aio-keystone-bm',
        computes=0,
        extra_args=('--baremetal-nodes', '1', '--baremetal-emulate', '1'),
    ) as cloud:
        yield cloud


def _nodes(aio: Any) -> dict[str, dict[str, Any]]:
    return {
        row['name']: row
        for row in aio.openstack(
            'baremetal',
            'node',
            'list',
            '--fields',
            'uuid',
            'name',
            'instance_uuid',
            'provision_state',
            cloud=SYSTEM,
        )
    }


def test_enrolled_nodes_are_listed_by_the_system_cloud(aio: Any) -> None:
    """bm-1 provided by the all-in-one, emulated-1 enrolled; the
    latter managed and provided here as the system administrator."""

    def enrolled() -> dict[str, dict[str, Any]] | None:
        nodes = _nodes(aio)
        states = {name: n['provision_state'] for name, n in nodes.items()}
        return (
            nodes
            if states == {'bm-1': 'available', 'emulated-1': 'enroll'}
            else None
        )

    support.wait_for(
        enrolled, TIMEOUT, 'bm-1 available, emulated-1 enrolled', interval=1
    )
    aio.openstack(
        'baremetal',
        'node',
        'manage',
        'emulated-1',
        '--wait',
        '60',
        parse=False,
        cloud=SYSTEM,
        timeout=TIMEOUT,
    )
    # Cleaned by its agent (lookup and heartbeats need no token).
    aio.openstack(
        'baremetal',
        'node',
        'provide',
        'emulated-1',
        '--wait',
        '60',
        parse=False,
        cloud=SYSTEM,
        timeout=TIMEOUT,
    )
    assert _nodes(aio)['emulated-1']['provision_state'] == 'available'


def _boot_when_offered(aio: Any, image: str) -> dict[str, Any]:
    """Boot once the node is offered (the agent reports every 5 s); a
    boot before that ends in ERROR (No valid host) and is tried again."""

    def built(server_id: str) -> dict[str, Any] | None:
        shown = aio.openstack('server', 'show', server_id)
        return shown if shown['status'] in ('ACTIVE', 'ERROR') else None

    def booted() -> dict[str, Any] | None:
        server_id = aio.openstack(
            'server',
            'create',
            '--flavor',
            'baremetal',
            '--image',
            image,
            '--no-network',
            'bm-vm',
            timeout=TIMEOUT,
        )['id']
        server = support.wait_for(
            lambda: built(server_id), TIMEOUT, 'bm-vm built', interval=1
        )
        if server['status'] == 'ACTIVE':
            return server
        aio.openstack(
            'server',
            'delete',
            '--wait',
            server_id,
            parse=False,
            timeout=TIMEOUT,
        )
        return None

    return support.wait_for(booted, TIMEOUT, 'bm-vm ACTIVE', interval=2)


def test_a_baremetal_server_is_deployed_on_the_node(aio: Any) -> None:
    support.wait_for(
        lambda: (
            _nodes(aio).get('bm-1', {}).get('provision_state') == 'available'
        ),
        TIMEOUT,
        'bm-1 available',
    )
    image = aio.openstack(
        'image',
        'create',
        '--disk-format',
        'raw',
        '--container-format',
        'bare',
        'bm-image',
    )['id']
    server = _boot_when_offered(aio, image)
    # On bm-1, or on emulated-1 once provided (its resource class is
    # none, which the virt driver offers as CUSTOM_BAREMETAL).
    [node] = [
        n for n in _nodes(aio).values() if n['instance_uuid'] == server['id']
    ]
    assert server['OS-EXT-SRV-ATTR:hypervisor_hostname'] == node['uuid']
    assert node['provision_state'] == 'active'
