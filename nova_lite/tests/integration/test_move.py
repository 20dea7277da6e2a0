"""Cold migration and resize with real agents (three computes as separate
processes, RabbitMQ + MariaDB, local driver), driven by the openstack CLI.

After each step the test checks the server's host (``openstack server
show``), the instance's ``node`` and ``compute_id`` and the migration's
``dest_compute_id`` in the database, and where the disk files are.

The tests run in order on one deployment.
"""

import json
import secrets
from typing import Any

import devstack_support as support
import pytest
import sqlalchemy as sa

from nova_lite.tests.integration import scenario

pytestmark = pytest.mark.integration

TIMEOUT = 120


@pytest.fixture(scope='module')
def cloud(three_computes):
    return three_computes


@pytest.fixture(scope='module')
def setup(cloud) -> dict[str, Any]:
    suffix = secrets.token_hex(3)
    small = scenario.create_flavor(cloud, f'mv-small-{suffix}')
    large = cloud.openstack(
        'flavor',
        'create',
        '--vcpus',
        '2',
        '--ram',
        '512',
        '--disk',
        '2',
        f'mv-large-{suffix}',
    )['id']
    image = scenario.create_image(cloud, f'mv-{suffix}')
    return {'small': small, 'large': large, 'image': image, 'suffix': suffix}


def _db(cloud, query: str, **params: Any) -> Any:
    engine = sa.create_engine(cloud.db_url)
    try:
        with engine.connect() as connection:
            return connection.execute(sa.text(query), params).one()
    finally:
        engine.dispose()


def _placement(cloud, server_id: str) -> tuple[str, str, int]:
    """(host, node, compute_id) of the instance, with the compute node
    that compute_id names checked against host and node."""
    row = _db(
        cloud,
        'SELECT i.host, i.node, i.compute_id, c.host AS '
        'c_host, c.hypervisor_hostname AS c_node FROM instances i '
        'JOIN compute_nodes c ON c.id = i.compute_id WHERE i.uuid = '
        ':uuid',
        uuid=server_id,
    )
    assert (row.host, row.node) == (row.c_host, row.c_node), row
    return row.host, row.node, row.compute_id


def _vcpus(cloud, server_id: str) -> int:
    return _db(
        cloud, 'SELECT vcpus FROM instances WHERE uuid = :uuid', uuid=server_id
    ).vcpus


def _node_id(cloud, host: str) -> int:
    return _db(
        cloud,
        'SELECT id FROM compute_nodes WHERE host = :host AND deleted = 0',
        host=host,
    ).id


def _migration(cloud, server_id: str) -> Any:
    return _db(
        cloud,
        'SELECT migration_type, status, source_compute, '
        'dest_compute, dest_compute_id FROM migrations WHERE '
        'instance_uuid = :uuid AND deleted = 0 ORDER BY id DESC '
        'LIMIT 1',
        uuid=server_id,
    )


def _show(cloud, server_id: str) -> dict[str, Any]:
    return cloud.openstack('server', 'show', server_id)


def _wait(cloud, server_id: str, status: str) -> dict[str, Any]:
    def ready() -> Any:
        shown = _show(cloud, server_id)
        assert shown['status'] != 'ERROR', shown
        return shown['status'] == status and shown

    return support.wait_for(
        ready, TIMEOUT, f'{server_id} {status}', interval=1
    )


def _wait_migration(cloud, server_id: str, status: str) -> None:
    support.wait_for(
        lambda: _migration(cloud, server_id).status == status,
        TIMEOUT,
        f'migration {status}',
        interval=1,
    )


def _boot(cloud, setup, name: str) -> tuple[str, str]:
    server = scenario.boot(
        cloud, setup['small'], setup['image'], f'mv-{setup["suffix"]}-{name}'
    )
    shown = _show(cloud, server['id'])
    return server['id'], shown[scenario.HOST_KEY]


def _head(path) -> bytes:
    """The header the local driver writes (the file is sparse, 1 GiB+)."""
    with open(path, 'rb') as disk:
        return disk.read(64)


def _aside(cloud, host: str, server_id: str):
    return cloud.disk_path(host, server_id + '_resize')


def test_cold_migrate_then_confirm(cloud, setup):
    server, source = _boot(cloud, setup, 'cold')
    disk = _head(cloud.disk_path(source, server))
    cloud.openstack(
        'server', 'migrate', '--wait', server, parse=False, timeout=TIMEOUT
    )
    shown = _wait(cloud, server, 'VERIFY_RESIZE')
    dest = shown[scenario.HOST_KEY]
    assert dest != source, shown
    host, _node, compute_id = _placement(cloud, server)
    assert (host, compute_id) == (dest, _node_id(cloud, dest))
    migration = _migration(cloud, server)
    assert (migration.migration_type, migration.status) == (
        'migration',
        'finished',
    )
    assert migration.dest_compute_id == compute_id
    assert _head(cloud.disk_path(dest, server)) == disk
    assert not cloud.disk_path(source, server).exists()
    assert _aside(cloud, source, server).is_file()

    cloud.openstack('server', 'resize', 'confirm', server, parse=False)
    _wait_migration(cloud, server, 'confirmed')
    _wait(cloud, server, 'ACTIVE')
    assert _placement(cloud, server)[0] == dest
    assert not _aside(cloud, source, server).exists()
    assert cloud.disk_path(dest, server).is_file()
    rows = cloud.openstack('server', 'migration', 'list', '--server', server)
    assert [(r['Type'], r['Status']) for r in rows] == [
        ('migration', 'confirmed')
    ], rows


def test_migrate_to_a_named_host(cloud, setup):
    server, source = _boot(cloud, setup, 'named')
    target = next(
        h for h in ('compute-1', 'compute-2', 'compute-3') if h != source
    )
    cloud.openstack(
        '--os-compute-api-version',
        '2.56',
        'server',
        'migrate',
        '--host',
        target,
        '--wait',
        server,
        parse=False,
        timeout=TIMEOUT,
    )
    _wait(cloud, server, 'VERIFY_RESIZE')
    assert _placement(cloud, server)[:1] == (target,)
    assert _migration(cloud, server).dest_compute_id == _node_id(cloud, target)
    cloud.openstack('server', 'resize', 'confirm', server, parse=False)
    _wait(cloud, server, 'ACTIVE')


def test_resize_then_revert(cloud, setup):
    server, source = _boot(cloud, setup, 'revert')
    before = _placement(cloud, server)
    cloud.openstack(
        'server',
        'resize',
        '--flavor',
        setup['large'],
        '--wait',
        server,
        parse=False,
        timeout=TIMEOUT,
    )
    shown = _wait(cloud, server, 'VERIFY_RESIZE')
    dest = shown[scenario.HOST_KEY]
    assert dest != source
    assert _vcpus(cloud, server) == 2
    assert _placement(cloud, server)[2] == _node_id(cloud, dest)
    migration = _migration(cloud, server)
    assert (migration.migration_type, migration.status) == (
        'resize',
        'finished',
    )
    assert migration.dest_compute_id == _node_id(cloud, dest)
    assert cloud.disk_path(dest, server).stat().st_size == 2 * 1024**3

    cloud.openstack('server', 'resize', 'revert', server, parse=False)
    _wait_migration(cloud, server, 'reverted')
    shown = _wait(cloud, server, 'ACTIVE')
    assert shown[scenario.HOST_KEY] == source
    assert _vcpus(cloud, server) == 1
    assert _placement(cloud, server) == before
    assert not cloud.disk_path(dest, server).exists()
    assert cloud.disk_path(source, server).is_file()
    assert not _aside(cloud, source, server).exists()


def test_resize_then_confirm(cloud, setup):
    server, source = _boot(cloud, setup, 'confirm')
    cloud.openstack(
        'server',
        'resize',
        '--flavor',
        setup['large'],
        '--wait',
        server,
        parse=False,
        timeout=TIMEOUT,
    )
    dest = _wait(cloud, server, 'VERIFY_RESIZE')[scenario.HOST_KEY]
    cloud.openstack('server', 'resize', 'confirm', server, parse=False)
    _wait_migration(cloud, server, 'confirmed')
    shown = _wait(cloud, server, 'ACTIVE')
    assert shown[scenario.HOST_KEY] == dest
    assert _vcpus(cloud, server) == 2
    host, _node, compute_id = _placement(cloud, server)
    assert (host, compute_id) == (dest, _node_id(cloud, dest))
    assert not cloud.disk_path(source, server).exists()
    assert not _aside(cloud, source, server).exists()
    assert cloud.disk_path(dest, server).is_file()


def test_refusals(cloud, setup):
    server, _source = _boot(cloud, setup, 'refused')
    same = cloud.openstack(
        'server',
        'resize',
        '--flavor',
        setup['small'],
        server,
        parse=False,
        check=False,
    )
    assert same.returncode != 0, same
    assert 'must change flavor' in same.stderr, same
    early = cloud.openstack(
        'server', 'resize', 'confirm', server, parse=False, check=False
    )
    assert early.returncode != 0, early
    status, body = cloud.api_call(
        'POST', f'/v2.1/servers/{server}/action', {'revertResize': None}
    )
    assert status == 409, body


def test_online_data_migrations_links_old_records(cloud, setup):
    server, host = _boot(cloud, setup, 'old')
    engine = sa.create_engine(cloud.db_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                sa.text(
                    'UPDATE instances SET compute_id = NULL WHERE uuid = :u'
                ),
                {'u': server},
            )
    finally:
        engine.dispose()
    proc = cloud.manage('db', 'online_data_migrations')
    assert proc.returncode == 0, proc.stderr
    assert 'fill_instance_compute_ids' in proc.stdout, proc.stdout
    assert _placement(cloud, server)[2] == _node_id(cloud, host)


def test_a_state_reset_while_a_resize_waits_ends_it(cloud, setup):
    """The source hangs while the destination asks it to send the disks;
    an administrator resets the server to error meanwhile. When the
    source wakes up, the request it finds is no longer the server's: the
    migration ends in error (nothing moved) and the destination's claim
    goes with it; the server and its disk stay on the source (model seed
    20119 left the record pre-migrating and the claim held for good)."""
    server, source = _boot(cloud, setup, 'reset')
    cloud.pause(source)
    try:
        cloud.openstack(
            'server', 'resize', '--flavor', setup['large'], server, parse=False
        )
        support.wait_for(
            lambda: _migration(cloud, server).dest_compute_id is not None,
            TIMEOUT,
            'the destination to claim',
            interval=1,
        )
        cloud.openstack(
            'server',
            'set',
            '--auto-approve',
            '--state',
            'error',
            server,
            parse=False,
        )
    finally:
        cloud.resume(source)
    _wait_migration(cloud, server, 'error')
    shown = _show(cloud, server)
    assert shown['status'] == 'ERROR', shown
    assert shown[scenario.HOST_KEY] == source
    assert _vcpus(cloud, server) == 1
    assert cloud.disk_path(source, server).is_file()
    dest = _migration(cloud, server).dest_compute
    assert not cloud.disk_path(dest, server).exists()
    # Back to work: the operator resets it to active and it moves.
    cloud.openstack(
        'server',
        'set',
        '--auto-approve',
        '--state',
        'active',
        server,
        parse=False,
    )
    cloud.openstack(
        'server',
        'resize',
        '--flavor',
        setup['large'],
        '--wait',
        server,
        parse=False,
        timeout=TIMEOUT,
    )
    assert _wait(cloud, server, 'VERIFY_RESIZE')[scenario.HOST_KEY] != source


def _power(cloud, host: str, server: str) -> dict[str, Any]:
    """The local driver's power.json of the server on ``host``."""
    path = cloud.disk_path(host, server).with_name('power.json')
    return (
        json.loads(path.read_text())
        if path.exists()
        else {'state': 'running', 'boots': 1}
    )


def test_stop_migrate_start_reboot_lock_and_events(cloud, setup):
    """The day-to-day actions with the real CLI: a stopped server stays
    stopped through a cold migration (power.json moves with it), starts
    and reboots on its new host; a lock keeps its owner's hands off; and
    ``server event list/show`` shows each request with its events."""
    server, source = _boot(cloud, setup, 'power')
    cloud.openstack('server', 'stop', server, parse=False)
    shown = _wait(cloud, server, 'SHUTOFF')
    assert shown['OS-EXT-STS:power_state'] == 4, shown  # Shutdown
    assert _power(cloud, source, server)['state'] == 'shutdown'

    cloud.openstack(
        'server', 'migrate', '--wait', server, parse=False, timeout=TIMEOUT
    )
    dest = _wait(cloud, server, 'VERIFY_RESIZE')[scenario.HOST_KEY]
    assert dest != source
    cloud.openstack('server', 'resize', 'confirm', server, parse=False)
    shown = _wait(cloud, server, 'SHUTOFF')
    assert shown[scenario.HOST_KEY] == dest
    assert _power(cloud, dest, server)['state'] == 'shutdown'

    cloud.openstack('server', 'start', server, parse=False)
    _wait(cloud, server, 'ACTIVE')
    boots = _power(cloud, dest, server)['boots']
    cloud.openstack(
        'server',
        'reboot',
        '--hard',
        '--wait',
        server,
        parse=False,
        timeout=TIMEOUT,
    )
    _wait(cloud, server, 'ACTIVE')
    assert _power(cloud, dest, server) == {
        'state': 'running',
        'boots': boots + 1,
    }

    _lock_refusals(cloud, setup)
    cloud.openstack('server', 'lock', server, parse=False)
    cloud.openstack('server', 'unlock', server, parse=False)

    events = cloud.openstack('server', 'event', 'list', server)
    assert [row['Action'] for row in events] == [
        'unlock',
        'lock',
        'reboot',
        'start',
        'confirmResize',
        'migrate',
        'stop',
        'create',
    ], events
    migrate = next(row for row in events if row['Action'] == 'migrate')
    detail = cloud.openstack(
        'server', 'event', 'show', server, migrate['Request ID']
    )
    names = {event['event'] for event in detail['events']}
    assert {
        'conductor_migrate_server',
        'compute_prep_resize',
        'compute_resize_instance',
        'compute_finish_resize',
    } <= names, detail
    assert all(event['result'] == 'Success' for event in detail['events']), (
        detail
    )


def _lock_refusals(cloud, setup) -> None:
    """A member's server: locked, its owner cannot stop it; an
    administrator's lock is not the owner's to lift."""
    demo = 'stacklite-demo'
    image = cloud.openstack(
        'image',
        'create',
        '--disk-format',
        'raw',
        '--container-format',
        'bare',
        '--public',
        f'mv-public-{setup["suffix"]}',
    )['id']
    mine = cloud.openstack(
        'server',
        'create',
        '--flavor',
        setup['small'],
        '--image',
        image,
        '--no-network',
        '--wait',
        f'mv-{setup["suffix"]}-demo',
        cloud=demo,
        timeout=TIMEOUT,
    )['id']
    cloud.openstack('server', 'lock', mine, cloud=demo, parse=False)
    refused = cloud.openstack(
        'server', 'stop', mine, cloud=demo, parse=False, check=False
    )
    assert refused.returncode != 0
    assert 'is locked' in refused.stderr, refused.stderr
    cloud.openstack('server', 'unlock', mine, cloud=demo, parse=False)
    cloud.openstack('server', 'lock', mine, parse=False)  # an admin's
    refused = cloud.openstack(
        'server', 'unlock', mine, cloud=demo, parse=False, check=False
    )
    assert refused.returncode != 0
    assert 'unlock_override' in refused.stderr, refused.stderr
    cloud.openstack('server', 'unlock', mine, parse=False)
    cloud.openstack(
        'server',
        'delete',
        '--wait',
        mine,
        cloud=demo,
        parse=False,
        timeout=TIMEOUT,
    )


def test_keypairs_properties_zones_and_usage(cloud, setup, tmp_path):
    """openstack keypair create (generated and imported), list, show,
    delete, and a server booted with --key-name; server and flavor
    properties; availability zones; usage."""
    name = f'kp-{setup["suffix"]}'
    private = tmp_path / 'id_rsa'
    created = cloud.openstack(
        'keypair', 'create', '--private-key', str(private), name
    )
    assert created['name'] == name, created
    # (openstackclient generates the key itself and imports the public
    # part; server-side generation is in the gabbi tests.)
    assert 'PRIVATE KEY-----' in private.read_text()
    shown = cloud.openstack('keypair', 'show', name)
    assert shown['fingerprint'] == created['fingerprint'], shown
    public = cloud.openstack(
        'keypair', 'show', '--public-key', name, parse=False
    ).strip()
    imported = cloud.openstack(
        'keypair',
        'create',
        '--public-key',
        _write(tmp_path / 'pub', public),
        name + '-copy',
    )
    assert imported['fingerprint'] == created['fingerprint'], imported
    listed = {row['Name'] for row in cloud.openstack('keypair', 'list')}
    assert {name, name + '-copy'} <= listed, listed
    server = cloud.openstack(
        'server',
        'create',
        '--flavor',
        setup['small'],
        '--image',
        setup['image'],
        '--no-network',
        '--key-name',
        name,
        '--wait',
        f'mv-{setup["suffix"]}-keyed',
        timeout=TIMEOUT,
    )
    assert server['key_name'] == name, server
    cloud.openstack(
        'server',
        'set',
        '--property',
        'role=web',
        '--property',
        'tier=1',
        server['id'],
        parse=False,
    )
    shown = cloud.openstack('server', 'show', server['id'])
    assert shown['properties'] == {'role': 'web', 'tier': '1'}, shown
    cloud.openstack(
        'server', 'unset', '--property', 'tier', server['id'], parse=False
    )
    cloud.openstack(
        'server',
        'set',
        '--name',
        f'kp-{setup["suffix"]}-2',
        server['id'],
        parse=False,
    )
    assert (
        cloud.openstack('server', 'show', server['id'])['name']
        == f'kp-{setup["suffix"]}-2'
    )
    assert cloud.openstack('server', 'list', '--name', '^kp-.*-2$')
    cloud.openstack(
        'server', 'set', '--tag', 'keyed', server['id'], parse=False
    )
    tagged = cloud.openstack('server', 'list', '--tags', 'keyed')
    assert [row['ID'] for row in tagged] == [server['id']], tagged
    assert cloud.openstack('server', 'show', server['id'])['properties'] == {
        'role': 'web'
    }
    refused = cloud.openstack(
        'server',
        'create',
        '--flavor',
        setup['small'],
        '--image',
        setup['image'],
        '--no-network',
        '--key-name',
        'no-such-key',
        f'mv-{setup["suffix"]}-nokey',
        parse=False,
        check=False,
    )
    assert refused.returncode != 0
    assert 'Invalid key_name provided' in refused.stderr, refused.stderr
    # A flavor's extra specs (openstack flavor show reads them).
    cloud.openstack(
        'flavor',
        'set',
        '--property',
        'hw:cpu_policy=shared',
        setup['large'],
        parse=False,
    )
    flavor = cloud.openstack('flavor', 'show', setup['large'])
    assert flavor['properties'] == {'hw:cpu_policy': 'shared'}, flavor
    cloud.openstack(
        'flavor',
        'unset',
        '--property',
        'hw:cpu_policy',
        setup['large'],
        parse=False,
    )
    assert (
        cloud.openstack('flavor', 'show', setup['large'])['properties'] == {}
    )
    # A private flavor, seen by the demo project once given access.
    private = f'mv-private-{setup["suffix"]}'
    cloud.openstack(
        'flavor',
        'create',
        '--private',
        '--vcpus',
        '1',
        '--ram',
        '64',
        '--disk',
        '1',
        private,
    )
    hidden = cloud.openstack(
        'flavor',
        'show',
        private,
        cloud='stacklite-demo',
        parse=False,
        check=False,
    )
    assert hidden.returncode != 0
    cloud.openstack('flavor', 'set', '--project', 'demo', private, parse=False)
    assert (
        cloud.openstack('flavor', 'show', private, cloud='stacklite-demo')[
            'name'
        ]
        == private
    )
    zones = cloud.openstack('availability', 'zone', 'list', '--compute')
    # (an administrator's CLI asks for the detail: the internal zone of
    # the conductor too, as upstream)
    assert {(z['Zone Name'], z['Zone Status']) for z in zones} == {
        ('nova', 'available'),
        ('internal', 'available'),
    }, zones
    # (openstackclient asks with detailed=True, which upstream, and so
    # nova_lite, does not take for "1": its Servers column stays empty)
    usage = cloud.openstack('usage', 'list', '--start', '2000-01-01')
    assert usage and all(float(row['CPU Hours']) > 0 for row in usage), usage
    cloud.openstack('keypair', 'delete', name, name + '-copy', parse=False)
    listed = {row['Name'] for row in cloud.openstack('keypair', 'list')}
    assert not {name, name + '-copy'} & listed, listed


def _write(path, text: str) -> str:
    path.write_text(text + '\n')
    return str(path)


def _header_image(cloud, host: str, server: str) -> str:
    """The image the local driver wrote the disk from."""
    with open(cloud.disk_path(host, server), 'rb') as disk:
        return json.loads(disk.read(512).split(b'\0')[0])['image']


def test_pause_suspend_shelve_unshelve_elsewhere_rebuild_and_events(
    cloud, setup
):
    """pause, suspend, shelve (offloaded: no host, no disk, compute_id
    NULL), unshelve onto another host (the disk back from the snapshot's
    data, the links set together), rebuild, createImage, and each in ``server
    event list``, with the real CLI."""
    server, source = _boot(cloud, setup, 'shelf')
    name = f'mv-{setup["suffix"]}-shelf'
    cloud.openstack('server', 'pause', server, parse=False)
    assert _wait(cloud, server, 'PAUSED')['OS-EXT-STS:power_state'] == 3
    assert _power(cloud, source, server)['state'] == 'paused'
    cloud.openstack('server', 'unpause', server, parse=False)
    _wait(cloud, server, 'ACTIVE')
    cloud.openstack('server', 'suspend', server, parse=False)
    assert _wait(cloud, server, 'SUSPENDED')['OS-EXT-STS:power_state'] == 7
    cloud.openstack('server', 'resume', server, parse=False)
    _wait(cloud, server, 'ACTIVE')

    cloud.openstack('server', 'shelve', server, parse=False)
    shown = _wait(cloud, server, 'SHELVED_OFFLOADED')
    assert shown[scenario.HOST_KEY] is None, shown
    row = _db(
        cloud,
        'SELECT host, node, compute_id FROM instances WHERE uuid = :uuid',
        uuid=server,
    )
    assert (row.host, row.node, row.compute_id) == (None, None, None), row
    assert not cloud.disk_path(source, server).exists()
    [snapshot] = cloud.openstack('image', 'list', '--name', f'{name}-shelved')
    assert snapshot['Status'] == 'active', snapshot

    scenario.set_compute_enabled(cloud, source, enabled=False)
    try:
        cloud.openstack('server', 'unshelve', server, parse=False)
        dest = _wait(cloud, server, 'ACTIVE')[scenario.HOST_KEY]
    finally:
        scenario.set_compute_enabled(cloud, source, enabled=True)
    assert dest != source
    host, _node, compute_id = _placement(cloud, server)
    assert (host, compute_id) == (dest, _node_id(cloud, dest))
    # The disk shelved (uploaded as the snapshot's data), its header
    # included: it names the image the server was booted from.
    assert _header_image(cloud, dest, server) == setup['image']
    assert cloud.openstack('image', 'list', '--name', f'{name}-shelved') == []

    image = scenario.create_image(cloud, f'mv-rebuild-{setup["suffix"]}')
    cloud.openstack(
        'server',
        'rebuild',
        '--image',
        image,
        '--wait',
        server,
        parse=False,
        timeout=TIMEOUT,
    )
    _wait(cloud, server, 'ACTIVE')
    assert _header_image(cloud, dest, server) == image
    snap = cloud.openstack(
        'server',
        'image',
        'create',
        '--name',
        f'{name}-snap',
        '--wait',
        server,
        timeout=TIMEOUT,
    )
    assert snap['name'] == f'{name}-snap', snap
    # The agent uploaded the disk (qcow2) through the Image API.
    uploaded = cloud.openstack('image', 'show', snap['id'])
    assert (uploaded['status'], uploaded['disk_format']) == (
        'active',
        'qcow2',
    ), uploaded
    assert uploaded['size'] > 0, uploaded

    events = cloud.openstack('server', 'event', 'list', server)
    assert [row['Action'] for row in events] == [
        'createImage',
        'rebuild',
        'unshelve',
        'shelve',
        'resume',
        'suspend',
        'unpause',
        'pause',
        'create',
    ], events
    unshelve = next(row for row in events if row['Action'] == 'unshelve')
    detail = cloud.openstack(
        'server', 'event', 'show', server, unshelve['Request ID']
    )
    assert {event['event'] for event in detail['events']} == {
        'conductor_unshelve_instance',
        'compute_unshelve_instance',
    }, detail
    cloud.openstack(
        'server', 'delete', '--wait', server, parse=False, timeout=TIMEOUT
    )
