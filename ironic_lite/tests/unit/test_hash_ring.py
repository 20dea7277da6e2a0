"""The consistent hash ring of conductors."""

import collections
import subprocess
import sys
import uuid

import pytest

from ironic_lite import exception
from ironic_lite.common import hash_ring

HOSTS = ['cond-a', 'cond-b', 'cond-c']


def _keys(count):
    # Deterministic uuids: the test must not depend on luck.
    return [str(uuid.UUID(int=i * 7919 + 1)) for i in range(count)]


def test_deterministic_whatever_the_host_order():
    ring = hash_ring.HashRing(HOSTS)
    other = hash_ring.HashRing(reversed(HOSTS + ['cond-a']))
    for key in _keys(200):
        assert ring.get_host(key) == other.get_host(key)


def test_same_mapping_in_another_process():
    """No per-process salt (such as Python's hash())."""
    keys = _keys(20)
    code = (
        'import sys; from ironic_lite.common import hash_ring; '
        'r = hash_ring.HashRing(sys.argv[1].split(",")); '
        'print(",".join(r.get_host(k) for k in sys.argv[2:]))'
    )
    out = subprocess.run(
        [sys.executable, '-c', code, ','.join(HOSTS), *keys],
        capture_output=True,
        text=True,
        check=True,
        env={'PYTHONHASHSEED': '12345', 'PYTHONPATH': ':'.join(sys.path)},
    )
    ring = hash_ring.HashRing(HOSTS)
    assert out.stdout.strip().split(',') == [ring.get_host(k) for k in keys]


def test_balance():
    ring = hash_ring.HashRing(HOSTS)
    counts = collections.Counter(ring.get_host(k) for k in _keys(3000))
    assert set(counts) == set(HOSTS)
    for host in HOSTS:
        assert 0.20 * 3000 <= counts[host] <= 0.47 * 3000, counts


def test_removing_a_host_moves_only_its_keys():
    keys = _keys(3000)
    before = hash_ring.HashRing(HOSTS)
    after = hash_ring.HashRing(['cond-a', 'cond-c'])
    moved = 0
    for key in keys:
        old = before.get_host(key)
        if old == 'cond-b':
            moved += 1
            assert after.get_host(key) in ('cond-a', 'cond-c')
        else:
            assert after.get_host(key) == old
    assert moved > 0


def test_get_hosts():
    ring = hash_ring.HashRing(HOSTS)
    for key in _keys(50):
        hosts = ring.get_hosts(key, 2)
        assert len(hosts) == 2 and len(set(hosts)) == 2
        assert hosts[0] == ring.get_host(key)
        # The second choice is where the key goes without the first.
        without = hash_ring.HashRing(set(HOSTS) - {hosts[0]})
        assert without.get_host(key) == hosts[1]
    assert sorted(ring.get_hosts('x', 10)) == sorted(HOSTS)
    with pytest.raises(ValueError):
        ring.get_hosts('x', 0)


def test_empty_ring_raises():
    ring = hash_ring.HashRing([])
    assert len(ring) == 0
    with pytest.raises(exception.NoValidHost, match='no conductor'):
        ring.get_host('x')
    with pytest.raises(exception.NoValidHost):
        ring.get_hosts('x', 2)
    with pytest.raises(ValueError):
        hash_ring.HashRing(HOSTS, partitions_per_host=0)


def test_ring_for_driver():
    alive = [
        {'hostname': 'cond-a', 'hardware_types': ['fake-hardware']},
        {'hostname': 'cond-b', 'hardware_types': ['ipmi']},
        {'hostname': 'cond-c', 'hardware_types': ['ipmi', 'fake-hardware']},
    ]
    ring = hash_ring.ring_for_driver(alive, 'fake-hardware')
    assert ring.hosts == {'cond-a', 'cond-c'}
    assert hash_ring.ring_for_driver(alive, 'ipmi').hosts == {
        'cond-b',
        'cond-c',
    }
    with pytest.raises(exception.NoValidHost, match='redfish'):
        hash_ring.ring_for_driver(alive, 'redfish')


def test_ring_for_driver_honours_conductor_groups():
    alive = [
        {
            'hostname': 'cond-a',
            'hardware_types': ['fake-hardware'],
            'conductor_group': '',
        },
        {
            'hostname': 'cond-b',
            'hardware_types': ['fake-hardware'],
            'conductor_group': 'rack1',
        },
        {
            'hostname': 'cond-c',
            'hardware_types': ['fake-hardware'],
            'conductor_group': 'rack1',
        },
    ]
    assert hash_ring.ring_for_driver(alive, 'fake-hardware').hosts == {
        'cond-a'
    }
    # Case insensitive, as upstream.
    ring = hash_ring.ring_for_driver(
        alive, 'fake-hardware', conductor_group='RACK1'
    )
    assert ring.hosts == {'cond-b', 'cond-c'}
    with pytest.raises(
        exception.NoValidHost, match='in conductor group "rack2"'
    ):
        hash_ring.ring_for_driver(
            alive, 'fake-hardware', conductor_group='rack2'
        )


def test_node_group():
    assert hash_ring.node_group({'conductor_group': 'Rack1'}) == 'rack1'
    assert hash_ring.node_group({'conductor_group': None}) == ''
    assert hash_ring.node_group({}) == ''
