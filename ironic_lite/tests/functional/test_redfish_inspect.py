"""The redfish inspect interface against sushy-emulator (with the fake
systems driver extended by processors and memory:
:mod:`ironic_lite.tests.redfish_fake_plus`; the stock one reports
neither, see test_redfish.py): ``manageable -> inspecting ->
manageable``, properties from the inventory, a port per NIC."""

import pytest

from ironic_lite.tests.functional import redfish_support as support


@pytest.fixture(scope='module')
def emulator(tmp_path_factory):
    bmc = support.start_emulator(
        tmp_path_factory.mktemp('redfish'), 2, plus=True
    )
    yield bmc
    bmc.stop()


@pytest.fixture(scope='module')
def stack():
    stack = support.start_stack(inspect=['fake', 'no-inspect', 'redfish'])
    yield stack
    stack.stop()


def _ports(stack, uuid: str) -> list[str]:
    status, body = support.call(stack, 'GET', f'/v1/ports?node={uuid}')
    assert status == 200, body
    return sorted(port['address'] for port in body['ports'])


def test_inspection_from_the_redfish_inventory(stack, emulator):
    node = support.manageable(stack, emulator, 0)
    uuid = node['uuid']
    assert node['inspect_interface'] == 'redfish'
    support.provision(stack, uuid, 'inspect')
    node = support.wait_provision(stack, uuid, 'manageable')
    assert node['last_error'] is None, node
    assert node['inspection_finished_at'] is not None
    properties = node['properties']
    assert properties['memory_mb'] == 16 * 1024
    assert properties['cpu_arch'] == 'x86_64'
    assert properties['local_gb'] == 99  # a 100 GiB drive, less 1
    assert properties['capabilities'] == 'boot_mode:uefi'
    assert _ports(stack, uuid) == ['52:54:00:12:34:01', '52:54:00:12:35:01']
    status, inventory = support.call(
        stack, 'GET', f'/v1/nodes/{uuid}/inventory'
    )
    assert status == 200, inventory
    cpu = inventory['inventory']['cpu']
    assert (cpu['count'], cpu['architecture'], cpu['model_name']) == (
        16,
        'x86_64',
        'Fake CPU',
    )
    assert inventory['inventory']['disks'] == [
        {'name': 'Drive 0', 'size': 100 * 1024**3}
    ]

    # Again: nothing doubled, the capability an operator set is kept.
    support.call(
        stack,
        'PATCH',
        f'/v1/nodes/{uuid}',
        [
            {
                'op': 'replace',
                'path': '/properties/capabilities',
                'value': 'boot_mode:bios',
            }
        ],
    )
    support.provision(stack, uuid, 'inspect')
    node = support.wait_provision(stack, uuid, 'manageable')
    assert node['properties']['capabilities'] == 'boot_mode:bios'
    assert len(_ports(stack, uuid)) == 2


def test_a_mac_of_another_node_is_skipped(stack, emulator):
    # A node enrolled by hand with the MAC of system 1's first NIC.
    status, other = support.call(
        stack, 'POST', '/v1/nodes', {'driver': 'fake-hardware'}
    )
    assert status == 201, other
    status, body = support.call(
        stack,
        'POST',
        '/v1/ports',
        {'node_uuid': other['uuid'], 'address': '52:54:00:12:34:02'},
    )
    assert status == 201, body
    uuid = support.manageable(stack, emulator, 1)['uuid']
    support.provision(stack, uuid, 'inspect')
    node = support.wait_provision(stack, uuid, 'manageable')
    assert node['last_error'] is None, node
    assert _ports(stack, uuid) == ['52:54:00:12:35:02']
