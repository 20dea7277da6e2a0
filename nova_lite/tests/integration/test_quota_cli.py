"""Quotas through the real ``openstack`` CLI against the all-in-one
with ``--identity http_basic`` (with Keystone, the default, see
test_aio_keystone_cli).

Under http_basic clients have no catalog: ``openstack quota show`` is
asked for the compute part with ``--compute`` (``quota set`` with
compute options only calls the compute API). Projects are resolved
through the identity project look-up nova-lite-api answers (a user's
project is its name).
"""

import pytest

from nova_lite.tests.integration import allinone
from nova_lite.tests.integration import conftest

pytestmark = pytest.mark.integration
DEMO = 'stacklite-demo'


@pytest.fixture(scope='module')
def aio(request, tmp_path_factory):
    base = tmp_path_factory.mktemp('aio-quota')
    cloud = allinone.AllInOne(
        base / 'state',
        base / 'aio.out',
        computes=1,
        extra_args=('--identity', 'http_basic'),
    )
    conftest.register_cloud(request, cloud)
    try:
        cloud.start()
        yield cloud
    finally:
        cloud.stop(timeout=60)


def _quotas(rows):
    return {row['Resource']: row for row in rows}


def _limits(rows):
    return {row['Name']: row['Value'] for row in rows}


def test_quota_show_set_and_limits(aio):
    shown = _quotas(aio.openstack('quota', 'show', '--compute', 'demo'))
    assert shown['instances']['Limit'] == 10
    assert shown['cores']['Limit'] == 20
    assert shown['ram']['Limit'] == 51200

    aio.openstack('quota', 'set', '--instances', '2', 'demo', parse=False)
    shown = _quotas(
        aio.openstack('quota', 'show', '--compute', 'demo', cloud=DEMO)
    )
    assert shown['instances']['Limit'] == 2

    # A member cannot raise its own quota.
    refused = aio.openstack(
        'quota',
        'set',
        '--instances',
        '50',
        'demo',
        cloud=DEMO,
        parse=False,
        check=False,
    )
    assert refused.returncode != 0
    assert 'os_compute_api:os-quota-sets:update' in refused.stderr

    aio.openstack(
        'flavor',
        'create',
        '--vcpus',
        '1',
        '--ram',
        '256',
        '--disk',
        '1',
        'q.tiny',
    )
    aio.openstack(
        'image',
        'create',
        '--disk-format',
        'raw',
        '--container-format',
        'bare',
        '--public',
        'q-image',
    )
    # --max 5: as many as the quota allows are created (2).
    aio.openstack(
        'server',
        'create',
        '--flavor',
        'q.tiny',
        '--image',
        'q-image',
        '--no-network',
        '--min',
        '1',
        '--max',
        '5',
        'q-vm',
        cloud=DEMO,
    )
    servers = aio.openstack('server', 'list', cloud=DEMO)
    assert len(servers) == 2, servers

    over = aio.openstack(
        'server',
        'create',
        '--flavor',
        'q.tiny',
        '--image',
        'q-image',
        '--no-network',
        'q-more',
        cloud=DEMO,
        check=False,
    )
    assert over.returncode != 0
    assert (
        'Quota exceeded for instances: Requested 1, but already used '
        '2 of 2 instances'
    ) in over.stderr, over.stderr

    limits = _limits(aio.openstack('limits', 'show', '--absolute', cloud=DEMO))
    assert limits['max_total_instances'] == 2
    assert limits['total_instances_used'] == 2
    assert limits['total_cores_used'] == 2
    assert limits['total_ram_used'] == 512
    assert limits['max_total_cores'] == 20
    assert limits['max_total_ram_size'] == 51200

    usage = _quotas(
        aio.openstack('quota', 'show', '--compute', '--usage', 'demo')
    )
    assert usage['instances']['In Use'] == 2

    aio.openstack('quota', 'delete', '--compute', 'demo', parse=False)
    shown = _quotas(aio.openstack('quota', 'show', '--compute', 'demo'))
    assert shown['instances']['Limit'] == 10
