"""Availability zones and server groups with real agents (three
computes as separate processes, RabbitMQ + MariaDB, local driver),
driven by the openstack CLI:

* an aggregate with a zone and one host: a server booted with
  ``--availability-zone`` lands on that host;
* an anti-affinity server group: three servers booted with
  ``--hint group=ID`` land on the three hosts, a fourth ends in ERROR
  with "No valid host was found".
"""

import secrets

import devstack_support as support
import pytest

from nova_lite.tests.integration import scenario

pytestmark = pytest.mark.integration

TIMEOUT = 120


def _create(cloud, flavor, image, name, *options):
    return cloud.openstack(
        'server',
        'create',
        '--flavor',
        flavor,
        '--image',
        image,
        '--no-network',
        *options,
        name,
        timeout=TIMEOUT,
    )['id']


def _wait_status(cloud, server_id, statuses=('ACTIVE', 'ERROR')):
    def ended():
        shown = cloud.openstack('server', 'show', server_id)
        return shown['status'] in statuses and shown

    return support.wait_for(
        ended, TIMEOUT, f'{server_id} {statuses}', interval=1
    )


def test_zone_and_anti_affinity(three_computes):
    cloud = three_computes
    hosts = scenario.wait_computes_up(cloud, minimum=3)
    suffix = secrets.token_hex(3)
    flavor = scenario.create_flavor(cloud, f'sch-{suffix}')
    image = scenario.create_image(cloud, f'sch-{suffix}')

    # (a) a zone of one host
    zone, host = f'zone-{suffix}', sorted(hosts)[-1]
    cloud.openstack('aggregate', 'create', '--zone', zone, f'agg-{suffix}')
    agg = cloud.openstack('aggregate', 'add', 'host', f'agg-{suffix}', host)
    assert agg['hosts'] == [host], agg
    zones = cloud.openstack('availability', 'zone', 'list', '--compute')
    # An administrator's list is the detail one: internal too.
    assert {z['Zone Name'] for z in zones} == {'internal', 'nova', zone}, zones
    in_zone = _create(
        cloud,
        flavor,
        image,
        f'sch-{suffix}-az',
        '--availability-zone',
        zone,
        '--wait',
    )
    shown = cloud.openstack('server', 'show', in_zone)
    assert (
        shown[scenario.HOST_KEY],
        shown['OS-EXT-AZ:availability_zone'],
    ) == (host, zone), shown
    cloud.openstack(
        'server', 'delete', '--wait', in_zone, parse=False, timeout=TIMEOUT
    )
    cloud.openstack('aggregate', 'remove', 'host', f'agg-{suffix}', host)

    # (b) anti-affinity over the three hosts
    group = cloud.openstack(
        'server',
        'group',
        'create',
        '--policy',
        'anti-affinity',
        f'grp-{suffix}',
    )
    members = [
        _create(
            cloud,
            flavor,
            image,
            f'sch-{suffix}-{i}',
            '--hint',
            f'group={group["id"]}',
            '--wait',
        )
        for i in range(3)
    ]
    placed = scenario.placement(cloud, members)
    assert sorted(placed.values()) == sorted(hosts), placed
    fourth = _create(
        cloud,
        flavor,
        image,
        f'sch-{suffix}-3',
        '--hint',
        f'group={group["id"]}',
    )
    shown = _wait_status(cloud, fourth)
    assert shown['status'] == 'ERROR', shown
    assert 'No valid host was found' in str(shown['fault']), shown
    shown = cloud.openstack('server', 'group', 'show', group['id'])
    assert sorted(shown['members']) == sorted([*members, fourth]), shown
