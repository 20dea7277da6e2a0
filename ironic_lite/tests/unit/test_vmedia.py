"""Virtual media on the conductor (API 1.89, 1.93): the endpoint called
directly (real SQLite, real worker pool), with the fake management
interface (which has none, as upstream's) and with one that has."""

import pytest

from ironic_lite import exception
from ironic_lite.conductor import vmedia
from ironic_lite.drivers import fake
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_manager import Unwrapped
from ironic_lite.tests.unit.test_task_manager import HOLDER
from ironic_lite.tests.unit.test_task_manager import HOST
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node
from ironic_lite.tests.unit.test_task_manager import wait_for

conf = fixtures.conf
pool = fixtures.pool
URL = 'http://example.com/a.iso'


@pytest.fixture
def manager(conf, pool):
    return Unwrapped(vmedia.VmediaManager(conf, HOLDER, pool))


def test_the_fake_interface_has_none(ctx, manager):
    node = make_node(ctx)
    with pytest.raises(exception.UnsupportedDriverExtension):
        manager.get_virtual_media(ctx, node['uuid'])
    manager.attach_virtual_media(ctx, node['uuid'], 'cdrom', URL)
    row = wait_for(ctx, node, lambda r: r['last_error'])
    assert row['last_error'] == (
        f'Could not attach device cdrom to node {node["uuid"]}: Driver '
        'fake-hardware does not support attach_virtual_media (disabled '
        'or not implemented).'
    )


def test_an_interface_with_virtual_media(ctx, manager, monkeypatch):
    """Attach and detach reach the interface on a worker, under the
    node's lock; a new request clears the last error."""
    calls = []

    def attach(self, task, device_type, image_url):
        calls.append(('attach', task.node.reservation, device_type, image_url))

    def detach(self, task, device_types=None):
        calls.append(('detach', task.node.reservation, device_types))

    def show(self, task):
        return {'cdrom': {'image_url': URL}}

    monkeypatch.setattr(fake.FakeManagement, 'attach_virtual_media', attach)
    monkeypatch.setattr(fake.FakeManagement, 'detach_virtual_media', detach)
    monkeypatch.setattr(fake.FakeManagement, 'get_virtual_media', show)
    node = make_node(ctx, last_error='an old failure')
    manager.attach_virtual_media(ctx, node['uuid'], 'cdrom', URL)
    row = wait_for(ctx, node, lambda r: len(calls) == 1)
    assert row['last_error'] is None
    manager.detach_virtual_media(ctx, node['uuid'], ['cdrom'])
    wait_for(ctx, node, lambda r: len(calls) == 2)
    assert calls == [
        ('attach', HOST, 'cdrom', URL),
        ('detach', HOST, ['cdrom']),
    ]
    assert manager.get_virtual_media(ctx, node['uuid']) == {
        'cdrom': {'image_url': URL}
    }
