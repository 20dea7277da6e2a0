"""Moves within the instance's availability zone and its server group's
policy, through the API with real services in process (three computes,
fake driver, SQLite, inproc bus): a migration of a server pinned to a
zone stays in it, an anti-affinity member is never evacuated beside
another member (No valid host when only such hosts remain), an
affinity member moves only alone, a soft policy prefers, and a
destination refusing at its late group check is replaced (up to
[scheduler]max_attempts) unless it was asked for by name."""

from typing import Any
import uuid as uuid_lib

import pytest

from lite_common import context as lite_context
from nova_lite.db import compute_nodes as node_db
from nova_lite.db import instances as instance_db
from nova_lite.db import migrations as migration_db
from nova_lite.objects import instance as instance_obj
from nova_lite.objects import migration as migration_obj
from nova_lite.scheduler import claims
from nova_lite.tests.functional.test_evacuate import Client
from nova_lite.tests.functional.test_evacuate import _image
from nova_lite.tests.functional.test_move_recovery import _running_manager
from nova_lite.tests.stack import Stack

HOSTS = ('compute-1', 'compute-2', 'compute-3')


@pytest.fixture
def client():  # type: ignore[no-untyped-def]
    stack = Stack(computes=3, driver='fake').start()
    client = Client(stack)
    client.ok(
        'POST',
        '/flavors',
        {
            'flavor': {
                'name': 'small',
                'id': 'f1',
                'vcpus': 1,
                'ram': 64,
                'disk': 1,
            }
        },
    )
    client.image = _image(stack)
    yield client
    stack.stop()


def _host(server: dict[str, Any]) -> str:
    return server['OS-EXT-SRV-ATTR:host']


def _boot(
    client: Client,
    name: str,
    zone: str | None = None,
    group: str | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        'name': name,
        'flavorRef': 'f1',
        'imageRef': client.image,
        'networks': 'none',
    }
    if zone is not None:
        spec['availability_zone'] = zone
    body: dict[str, Any] = {'server': spec}
    if group is not None:
        body['os:scheduler_hints'] = {'group': group}
    server = client.ok('POST', '/servers', body)['server']
    return client.wait(
        lambda: (s := client.server(server['id']))['status'] == 'ACTIVE' and s,
        f'{name} ACTIVE',
    )


def _group(client: Client, policy: str) -> str:
    return client.ok(
        'POST',
        '/os-server-groups',
        {'server_group': {'name': policy, 'policy': policy}},
        version='2.64',
    )['server_group']['id']


def _zone(client: Client, zone: str, *hosts: str) -> None:
    agg = client.ok(
        'POST',
        '/os-aggregates',
        {'aggregate': {'name': zone, 'availability_zone': zone}},
    )['aggregate']
    for host in hosts:
        client.ok(
            'POST',
            f'/os-aggregates/{agg["id"]}/action',
            {'add_host': {'host': host}},
        )


def _action(
    client: Client, uuid: str, body: Any, version: str = '2.56'
) -> Any:
    resp = client.call('POST', f'/servers/{uuid}/action', body, version)
    assert resp.status_int in (200, 202), resp.text
    return resp


def _moves(client: Client, uuid: str, kind: str) -> list[dict[str, Any]]:
    rows = client.ok(
        'GET', f'/os-migrations?instance_uuid={uuid}', version='2.23'
    )['migrations']
    return [row for row in rows if row['migration_type'] == kind]


def _migrated(client: Client, uuid: str, host: str | None = None) -> str:
    """Migrate (to ``host`` if given), confirm; the new host."""
    _action(client, uuid, {'migrate': {'host': host} if host else None})
    server = client.wait(
        lambda: (s := client.server(uuid))['status'] == 'VERIFY_RESIZE' and s,
        f'{uuid} VERIFY_RESIZE',
    )
    assert (
        client.call(
            'POST', f'/servers/{uuid}/action', {'confirmResize': None}
        ).status_int
        == 204
    )
    client.wait(
        lambda: client.server(uuid)['status'] == 'ACTIVE',
        f'{uuid} ACTIVE after confirm',
    )
    return _host(server)


def _migration_refused(
    client: Client, uuid: str, host: str | None = None
) -> dict[str, Any]:
    """A migration that ends in error; the server stays as it was."""
    before = len(_moves(client, uuid, 'migration'))
    _action(client, uuid, {'migrate': {'host': host} if host else None})
    client.wait(
        lambda: (
            len(rows := _moves(client, uuid, 'migration')) > before
            and rows[0]['status'] == 'error'
        ),
        'the migration in error',
    )
    return client.wait(
        lambda: (
            (s := client.server(uuid))['OS-EXT-STS:task_state'] is None and s
        ),
        'the task cleared',
    )


def _evacuation(
    client: Client, uuid: str, body: dict[str, Any], count: int
) -> dict[str, Any]:
    """Evacuate; the ``count``-th evacuation record once it ended."""
    _action(client, uuid, {'evacuate': body}, version='2.68')
    return client.wait(
        lambda: (
            len(rows := _moves(client, uuid, 'evacuation')) == count
            and rows[0]['status'] in ('done', 'error', 'failed')
            and rows[0]
        ),
        'the evacuation ended',
    )


def test_a_migration_stays_in_the_zone_the_server_is_pinned_to(client):
    _zone(client, 'az1', 'compute-1', 'compute-2')
    pinned = _boot(client, 'pinned', zone='az1')
    uuid = pinned['id']
    assert _host(pinned) in ('compute-1', 'compute-2')
    shown = client.ok('GET', f'/servers/{uuid}', version='2.96')['server']
    assert shown['pinned_availability_zone'] == 'az1'
    # compute-3 (zone nova) keeps the most room: only the zone keeps
    # the migrations out of it.
    for host in ('compute-1', 'compute-2'):
        _boot(client, f'filler-{host}', zone=f'az1:{host}')
    for _ in range(2):
        source = _host(client.server(uuid))
        dest = _migrated(client, uuid)
        assert dest != source and dest in ('compute-1', 'compute-2')
    after = _migration_refused(client, uuid, host='compute-3')
    assert after['status'] == 'ACTIVE' and _host(after) in (
        'compute-1',
        'compute-2',
    )

    # Created without a zone: pinned to none, it may go anywhere.
    free = _boot(client, 'free')
    assert (
        client.ok('GET', f'/servers/{free["id"]}', version='2.96')['server'][
            'pinned_availability_zone'
        ]
        is None
    )
    target = 'compute-1' if _host(free) == 'compute-3' else 'compute-3'
    assert _migrated(client, free['id'], host=target) == target


def test_evacuation_of_an_anti_affinity_member(client):
    group = _group(client, 'anti-affinity')
    members = [_boot(client, f'm{i}', group=group) for i in range(3)]
    hosts = [_host(m) for m in members]
    assert sorted(hosts) == sorted(HOSTS)
    first, second, third = members
    assert client.force_down(hosts[0], True).status_int == 200

    # Every other host holds a member: No valid host, the server ERROR
    # on its source (whose copy is kept), the record in error.
    record = _evacuation(client, first['id'], {}, 1)
    assert record['status'] == 'error'
    server = client.wait(
        lambda: (
            (s := client.server(first['id']))['OS-EXT-STS:task_state'] is None
            and s
        ),
        'the task cleared',
    )
    assert server['status'] == 'ERROR' and _host(server) == hosts[0]
    assert 'No valid host' in server['fault']['message']
    assert 'anti-affinity' in server['fault']['message']
    # An administrator's host is held to the policy too.
    record = _evacuation(client, first['id'], {'host': hosts[1]}, 2)
    assert record['status'] == 'error'
    assert _host(client.server(first['id'])) == hosts[0]

    # The third member goes: its host is free for the first.
    assert client.call('DELETE', f'/servers/{third["id"]}').status_int == 204
    client.wait(
        lambda: (
            client.call('GET', f'/servers/{third["id"]}').status_int == 404
        ),
        'the third member deleted',
    )
    record = _evacuation(client, first['id'], {}, 3)
    assert record['status'] == 'done', record
    assert record['dest_compute'] == hosts[2]
    moved = client.wait(
        lambda: (s := client.server(first['id']))['status'] == 'ACTIVE' and s,
        'the first member ACTIVE',
    )
    assert _host(moved) == hosts[2]
    assert _host(client.server(second['id'])) == hosts[1]


def test_an_affinity_member_moves_only_alone(client):
    group = _group(client, 'affinity')
    first = _boot(client, 'a1', group=group)
    second = _boot(client, 'a2', group=group)
    source = _host(first)
    assert _host(second) == source
    after = _migration_refused(client, first['id'])
    assert after['status'] == 'ACTIVE' and _host(after) == source
    assert client.call('DELETE', f'/servers/{second["id"]}').status_int == 204
    client.wait(
        lambda: (
            client.call('GET', f'/servers/{second["id"]}').status_int == 404
        ),
        'the second member deleted',
    )
    assert _migrated(client, first['id']) != source


def test_soft_affinity_prefers_the_members_host_on_a_move(client):
    group = _group(client, 'soft-affinity')
    first = _boot(client, 's1', group=group)
    second = _boot(client, 's2', group=group)
    assert _host(first) == _host(second)
    # The second member moves away (a soft policy allows it) ...
    elsewhere = next(h for h in HOSTS if h != _host(first))
    assert _migrated(client, second['id'], host=elsewhere) == elsewhere
    # ... and the first follows it there, though the third host is
    # empty (the most free memory).
    assert _migrated(client, first['id']) == elsewhere


def test_soft_anti_affinity_prefers_a_host_without_members(client):
    group = _group(client, 'soft-anti-affinity')
    first = _boot(client, 'n1', group=group)
    second = _boot(client, 'n2', group=group)
    assert _host(first) != _host(second)
    # Something unrelated fills the free host's memory lead.
    empty = next(h for h in HOSTS if h not in (_host(first), _host(second)))
    for i in range(2):
        _boot(client, f'filler{i}', zone=f'nova:{empty}')
    assert _migrated(client, first['id']) == empty


def test_an_evacuation_target_is_held_to_the_zone_unless_forced(client):
    _zone(client, 'az1', 'compute-1', 'compute-2')
    server = _boot(client, 'pinned', zone='az1:compute-1')
    uuid = server['id']
    assert client.force_down('compute-1', True).status_int == 200
    # An administrator's host outside the zone: No valid host (2.68).
    record = _evacuation(client, uuid, {'host': 'compute-3'}, 1)
    assert record['status'] == 'error'
    failed = client.wait(
        lambda: (
            (s := client.server(uuid))['OS-EXT-STS:task_state'] is None and s
        ),
        'the task cleared',
    )
    assert failed['status'] == 'ERROR' and _host(failed) == 'compute-1'
    assert 'availability zone az1' in failed['fault']['message']
    # Forced (2.29 to 2.67): upstream bypasses the scheduler's filters.
    _action(
        client,
        uuid,
        {'evacuate': {'host': 'compute-3', 'force': True}},
        version='2.29',
    )
    record = client.wait(
        lambda: (
            len(rows := _moves(client, uuid, 'evacuation')) == 2
            and rows[0]['status'] == 'done'
            and rows[0]
        ),
        'the evacuation done',
    )
    assert record['dest_compute'] == 'compute-3'
    moved = client.wait(
        lambda: (s := client.server(uuid))['status'] == 'ACTIVE' and s,
        'the server ACTIVE',
    )
    assert _host(moved) == 'compute-3'
    # Still pinned to az1: a later move goes back into the zone.
    assert (
        client.ok('GET', f'/servers/{uuid}', version='2.96')['server'][
            'pinned_availability_zone'
        ]
        == 'az1'
    )
    assert _migrated(client, uuid) == 'compute-2'


def _stale_first_choice(monkeypatch, wrong_host: str) -> list[tuple]:
    """The conductor's first choice of a destination is ``wrong_host``
    whatever the group says (as if a member landed there right after
    the scheduler looked); later choices are the scheduler's. The
    exclusions of each choice are recorded."""
    real = claims.select_destination
    calls: list[tuple] = []

    def choose(context, conf, request, exclude_hosts, only_host=None):
        calls.append(tuple(exclude_hosts))
        if len(calls) == 1:
            return real(
                context,
                conf,
                request._replace(group=None),
                (),
                only_host=wrong_host,
            )
        return real(context, conf, request, exclude_hosts, only_host)

    monkeypatch.setattr(claims, 'select_destination', choose)
    return calls


def _anti_affinity_pair(client: Client) -> tuple[str, str, str, str]:
    """(uuid of the second member, its host, the first's host, the
    free host)."""
    group = _group(client, 'anti-affinity')
    first = _boot(client, 'member-1', group=group)
    second = _boot(client, 'member-2', group=group)
    free = (set(HOSTS) - {_host(first), _host(second)}).pop()
    return second['id'], _host(second), _host(first), free


def test_a_destination_refusing_at_its_claim_is_replaced(client, monkeypatch):
    """The late group check refuses the scheduler's (stale) choice: the
    move goes to another destination, without the host that refused,
    as upstream's reschedule."""
    uuid, source, taken, free = _anti_affinity_pair(client)
    calls = _stale_first_choice(monkeypatch, taken)
    assert _migrated(client, uuid) == free
    assert calls[1] == (source, taken)
    [move] = _moves(client, uuid, 'migration')
    assert (move['status'], move['dest_compute']) == ('confirmed', free)
    row = migration_db.migration_get(
        lite_context.get_admin_context(), id=move['id']
    )
    assert row['refused_hosts'] == [taken]


def test_a_refused_destination_asked_for_is_not_replaced(client, monkeypatch):
    """An administrator's named destination (2.56) is not replaced: the
    move ends in error and the server stays."""
    uuid, source, taken, _free = _anti_affinity_pair(client)
    calls = _stale_first_choice(monkeypatch, taken)
    server = _migration_refused(client, uuid, host=taken)
    assert (_host(server), server['status']) == (source, 'ACTIVE')
    assert len(calls) == 1


def test_the_attempts_are_bounded(client, monkeypatch):
    """[scheduler]max_attempts = 1: the first refusal ends the move."""
    client.stack.conf.set_override('max_attempts', 1, group='scheduler')
    uuid, source, taken, _free = _anti_affinity_pair(client)
    calls = _stale_first_choice(monkeypatch, taken)
    server = _migration_refused(client, uuid)
    assert (_host(server), server['status']) == (source, 'ACTIVE')
    assert len(calls) == 1


def test_a_stale_request_to_a_host_that_refused_ends_nothing(client):
    """A prep_resize that reaches a host after the move was handed to
    another destination (redelivered, or sent by a recovery that read
    the record before) is refused there again, but the move is no
    longer that host's to end: it goes on with its destination."""
    uuid, source, taken, free = _anti_affinity_pair(client)
    ctx = lite_context.get_admin_context()
    free_node = node_db.compute_node_get(ctx, host=free)
    taken_node = node_db.compute_node_get(ctx, host=taken)
    flavor = instance_db.instance_get_by_uuid(ctx, uuid)['flavor']
    instance_db.instance_update(
        ctx,
        uuid,
        {
            'task_state': 'resize_prep',
            'old_flavor': flavor,
            'new_flavor': flavor,
        },
    )
    record = migration_db.migration_create(
        ctx,
        {
            'uuid': str(uuid_lib.uuid4()),
            'instance_uuid': uuid,
            'migration_type': 'migration',
            'status': 'pre-migrating',
            'source_compute': source,
            'source_node': source,
            'dest_compute': free,
            'dest_host': free,
            'dest_node': free_node['hypervisor_hostname'],
            'refused_hosts': [taken],
        },
    )
    stale = migration_obj.Migration.get_by_id(ctx, record['id'])
    stale.dest_compute = taken
    stale.dest_node = taken_node['hypervisor_hostname']
    _running_manager(client, taken).prep_resize(
        ctx, instance_obj.Instance.get_by_uuid(ctx, uuid), stale
    )
    after = migration_db.migration_get(ctx, id=record['id'])
    assert (
        after['status'],
        after['dest_compute'],
        after['dest_compute_id'],
        after['refused_hosts'],
    ) == ('pre-migrating', free, None, [taken])
    assert instance_db.instance_get_by_uuid(ctx, uuid)['task_state'] == (
        'resize_prep'
    )
    migration_db.migration_transition(
        ctx, record['id'], ('pre-migrating',), 'error'
    )
    instance_db.instance_update(ctx, uuid, {'task_state': None})
