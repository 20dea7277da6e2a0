"""nova_lite boots servers on ironic_lite nodes: the all-in-one with
``--baremetal-nodes 2`` (an ``ironic-compute`` agent with the ``ironic``
virt driver, talking to the Bare Metal API over REST), driven by the
real ``openstack`` CLI.

Each node is a compute node whose uuid and hypervisor_hostname are the
node's uuid; a ``baremetal`` flavor takes a whole node of its resource
class; a delete undeploys the node, which is cleaned back to
``available`` and offered again.
"""

import devstack_support as support
import pytest

from nova_lite.tests.integration import allinone
from nova_lite.tests.integration import conftest

pytestmark = pytest.mark.integration
TIMEOUT = 120
NODE_KEY = 'OS-EXT-SRV-ATTR:hypervisor_hostname'


@pytest.fixture(scope='module')
def aio(request, tmp_path_factory):
    base = tmp_path_factory.mktemp('aio-bm')
    cloud = allinone.AllInOne(
        base / 'state',
        base / 'aio.out',
        computes=1,
        extra_args=('--baremetal-nodes', '2'),
    )
    conftest.register_cloud(request, cloud)
    cloud.start()
    try:
        yield cloud
    finally:
        cloud.stop(timeout=60)


def _nodes(aio) -> dict[str, dict]:
    return {
        row['uuid']: row
        for row in aio.openstack(
            'baremetal',
            'node',
            'list',
            '--fields',
            'uuid',
            'name',
            'instance_uuid',
            'provision_state',
            'power_state',
        )
    }


def _pool_ready(aio) -> dict[str, dict]:
    """Both nodes available and offered (the flavor exists)."""

    def ready():
        nodes = _nodes(aio)
        flavors = [f['Name'] for f in aio.openstack('flavor', 'list')]
        return (
            len(nodes) == 2
            and 'baremetal' in flavors
            and all(
                n['provision_state'] == 'available' for n in nodes.values()
            )
            and nodes
        )

    return support.wait_for(ready, TIMEOUT, 'two available nodes', interval=2)


def _boot(aio, name: str, image: str, wait: bool = True) -> dict:
    args = [
        'server',
        'create',
        '--flavor',
        'baremetal',
        '--image',
        image,
        '--no-network',
        name,
    ]
    return aio.openstack(*args, *(['--wait'] if wait else []), timeout=TIMEOUT)


def _boot_when_offered(aio, name: str, image: str) -> dict:
    """Boot once the node's report offers it again (every 5 s): a boot
    before that ends in ERROR (No valid host), is deleted and tried
    again. (Not ``server create --wait``: it fails on ERROR.)"""

    def built(server_id: str) -> dict | None:
        shown = aio.openstack('server', 'show', server_id)
        return shown if shown['status'] in ('ACTIVE', 'ERROR') else None

    def booted():
        server_id = _boot(aio, name, image, wait=False)['id']
        server = support.wait_for(
            lambda: built(server_id), TIMEOUT, f'{name} built', interval=1
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

    return support.wait_for(booted, TIMEOUT, f'{name} ACTIVE', interval=2)


def test_a_server_boots_right_after_the_ready_line(aio):
    """The all-in-one says it is ready once its nodes are available and
    offered to the scheduler: a boot right then (the image made before,
    the request sent within milliseconds of the line) succeeds. When
    the line came before the nodes, such a boot was NoValidHost for
    several seconds."""
    conn = _sdk(aio)
    image = conn.image.create_image(
        name='first-image',
        disk_format='raw',
        container_format='bare',
        data=b'first image data',  # (only an active image boots)
    )
    list(conn.compute.flavors())  # endpoint discovery, before the line
    support.wait_for(
        lambda: 'stacklite is running' in aio.log_path.read_text(),
        TIMEOUT,
        'the ready line',
        interval=0.05,
    )
    server = conn.compute.create_server(
        name='bm-first',
        flavor_id='baremetal',
        image_id=image.id,
        networks='none',
    )
    server = conn.compute.wait_for_server(
        server, status='ACTIVE', failures=['ERROR'], wait=TIMEOUT
    )
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, wait=TIMEOUT)


def _sdk(aio):
    import openstack.config

    config = openstack.config.OpenStackConfig(
        config_files=[str(aio.clouds_yaml)], load_envvars=False
    )
    conn = openstack.connection.Connection(
        config=config.get_one(cloud=aio.cloud_name)
    )
    conn.authorize()
    return conn


def test_boot_fill_the_pool_delete_and_reuse(aio):
    nodes = _pool_ready(aio)
    image = aio.openstack(
        'image',
        'create',
        '--disk-format',
        'raw',
        '--container-format',
        'bare',
        'bm-image',
    )['id']
    # A VM flavor never lands on a whole machine.
    aio.openstack(
        'flavor',
        'create',
        '--vcpus',
        '1',
        '--ram',
        '64',
        '--disk',
        '1',
        'vm-small',
    )
    vm = aio.openstack(
        'server',
        'create',
        '--flavor',
        'vm-small',
        '--image',
        image,
        '--no-network',
        '--wait',
        'vm',
        timeout=TIMEOUT,
    )
    assert vm['OS-EXT-SRV-ATTR:host'] == 'compute-1', vm

    first = _boot_when_offered(aio, 'bm-1', image)
    second = _boot_when_offered(aio, 'bm-2', image)
    placed = {first[NODE_KEY]: first['id'], second[NODE_KEY]: second['id']}
    assert set(placed) == set(nodes)
    now = _nodes(aio)
    for node, server in placed.items():
        assert now[node]['instance_uuid'] == server
        assert now[node]['provision_state'] == 'active'
        assert now[node]['power_state'] == 'power on'
    assert first['OS-EXT-SRV-ATTR:host'] == 'ironic-compute'

    third = _boot(aio, 'bm-3', image, wait=False)
    shown = support.wait_for(
        lambda: (
            (s := aio.openstack('server', 'show', third['id']))['status']
            == 'ERROR'
            and s
        ),
        TIMEOUT,
        'bm-3 ERROR',
        interval=1,
    )
    assert 'No valid host' in shown['fault']['message'], shown
    # Why: both nodes hold a server (not "taken meanwhile").
    assert 'of 2 reported, 2 in use' in shown['fault']['message'], shown
    aio.openstack(
        'server', 'delete', '--wait', third['id'], parse=False, timeout=TIMEOUT
    )

    refused = aio.openstack(
        'server', 'evacuate', first['id'], parse=False, check=False
    )
    assert refused.returncode != 0
    assert 'bare metal server' in refused.stderr, refused.stderr

    aio.openstack('server', 'stop', first['id'], parse=False)
    support.wait_for(
        lambda: _nodes(aio)[first[NODE_KEY]]['power_state'] == 'power off',
        TIMEOUT,
        'node off',
        interval=1,
    )

    aio.openstack(
        'server', 'delete', '--wait', first['id'], parse=False, timeout=TIMEOUT
    )
    freed = support.wait_for(
        lambda: (
            (n := _nodes(aio)[first[NODE_KEY]])['provision_state']
            == 'available'
            and n
        ),
        TIMEOUT,
        'node cleaned',
        interval=1,
    )
    assert freed['instance_uuid'] is None
    again = _boot_when_offered(aio, 'bm-again', image)
    assert again[NODE_KEY] == first[NODE_KEY]
    hypervisors = {
        h['Hypervisor Hostname']: h
        for h in aio.openstack('hypervisor', 'list')
    }
    assert set(nodes) <= set(hypervisors), hypervisors
