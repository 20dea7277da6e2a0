"""What the ironic driver sends with a deploy and how it reports the
cleaning after a delete: the config drive documents of a server, the
ports kept for it, and the event of its delete action that ends with
the node's cleaning (on a real SQLite file, read back as the API
reads it)."""

import base64
import json
import stat
from types import SimpleNamespace
import uuid

import pytest

from nova_lite import exception
from nova_lite.common import requested_ports
from nova_lite.db import instance_actions as actions_db
from nova_lite.db import instances
from nova_lite.objects import instance as instance_obj
from nova_lite.virt import ironic_cleaning
from nova_lite.virt import ironic_configdrive


def _server(ctx, **values):
    row = instances.instance_create(
        ctx,
        {
            'uuid': str(uuid.uuid4()),
            'project_id': 'p',
            'user_id': 'u',
            'display_name': 'My DB_server',
            'flavor': {'name': 'bm'},
            'vm_state': 'active',
            'availability_zone': 'nova',
            'metadata': {'role': 'db'},
            **values,
        },
    )
    return instance_obj.Instance.get_by_uuid(ctx, row['uuid'])


def test_config_drive_documents(ctx, conf):
    text = '#cloud-config\npackages: [nginx]\n'
    server = _server(
        ctx,
        config_drive='True',
        key_name='mine',
        key_data='ssh-ed25519 AAAA me@host',
        user_data=base64.b64encode(text.encode()).decode(),
    )
    assert ironic_configdrive.required(conf, server)
    drive = ironic_configdrive.documents(server)
    meta = drive['meta_data']
    assert meta['uuid'] == server.uuid
    assert (meta['name'], meta['hostname']) == ('My DB_server', 'my-db-server')
    assert meta['public_keys'] == {'mine': 'ssh-ed25519 AAAA me@host'}
    assert meta['keys'] == [
        {'name': 'mine', 'type': 'ssh', 'data': 'ssh-ed25519 AAAA me@host'}
    ]
    assert (
        meta['meta'],
        meta['project_id'],
        meta['availability_zone'],
        meta['launch_index'],
    ) == ({'role': 'db'}, 'p', 'nova', 0)
    assert len(base64.b64decode(meta['random_seed'])) == 512
    assert drive['user_data'] == text
    assert drive['network_data'] == {
        'links': [],
        'networks': [],
        'services': [],
    }


def test_config_drive_when_asked_or_forced(ctx, conf):
    server = _server(ctx, config_drive='')
    assert not ironic_configdrive.required(conf, server)
    assert 'user_data' not in ironic_configdrive.documents(server)
    conf.set_override('force_config_drive', True)
    assert ironic_configdrive.required(conf, server)


def test_binary_user_data_is_refused(ctx):
    server = _server(ctx, user_data=base64.b64encode(b'\x1f\x8b\xff').decode())
    with pytest.raises(exception.VirtDriverError, match='not UTF-8'):
        ironic_configdrive.documents(server)


def test_requested_ports():
    port = str(uuid.uuid4())
    assert requested_ports.parse('none') == []
    assert requested_ports.parse([{'port': port}]) == [port]
    kept = requested_ports.encode([port])
    assert requested_ports.decode(kept) == [port]
    assert requested_ports.encode([]) == {}
    for bad in (
        [{'uuid': port}],
        [{'port': 'x'}],
        [{'port': port}, {'port': port}],
        [{'port': port, 'fixed_ip': '10.0.0.1'}],
    ):
        with pytest.raises(requested_ports.Refused):
            requested_ports.parse(bad)


def _node(node_id, state, instance_id=None, last_error=None):
    return SimpleNamespace(
        id=node_id,
        provision_state=state,
        instance_id=instance_id,
        last_error=last_error,
    )


def test_cleaning_outcomes():
    inst = str(uuid.uuid4())
    outcome = ironic_cleaning.outcome
    for state in ('deleting', 'cleaning', 'clean wait', 'clean hold'):
        assert outcome(_node('n', state), inst) is None
    assert outcome(_node('n', 'active', inst), inst) is None
    assert outcome(_node('n', 'available'), inst) == ('Success', None)
    assert outcome(_node('n', 'active', 'other'), inst) == ('Success', None)
    result, error = outcome(
        _node('n', 'clean failed', None, 'disk died'), inst
    )
    assert result == 'Error' and 'failed: disk died' in error
    result, error = outcome(None, inst)
    assert result == 'Error' and 'no longer exists' in error


def _delete_action(ctx, server):
    actions_db.record(
        ctx,
        {
            'action': 'delete',
            'instance_uuid': server.uuid,
            'request_id': 'req-delete',
            'user_id': 'u',
            'project_id': 'p',
        },
    )


def _event(ctx, server):
    [action] = [
        a
        for a in actions_db.actions_get(ctx, server.uuid)
        if a['action'] == 'delete'
    ]
    [event] = [
        e
        for e in actions_db.events_get(ctx, action['id'])
        if e['event'] == ironic_cleaning.EVENT
    ]
    return action, event


def test_a_failed_cleaning_ends_the_delete_event_in_error(ctx, tmp_path):
    failed, cleaned = _server(ctx), _server(ctx)
    for server in (failed, cleaned):
        _delete_action(ctx, server)
    watch = ironic_cleaning.CleaningWatch(str(tmp_path), 'ironic-compute')
    watch.start('node-1', failed.uuid)
    watch.start('node-2', cleaned.uuid)
    path = tmp_path / ironic_cleaning.STATE_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    _, event = _event(ctx, failed)
    assert (event['result'], event['finish_time']) == (None, None)

    watch.check(
        {
            'node-1': _node('node-1', 'cleaning'),
            'node-2': _node('node-2', 'clean wait'),
        }
    )
    assert set(json.loads(path.read_text())) == {'node-1', 'node-2'}

    # A restarted agent goes on watching.
    watch = ironic_cleaning.CleaningWatch(str(tmp_path), 'ironic-compute')
    watch.check(
        {
            'node-1': _node(
                'node-1',
                'clean failed',
                None,
                'Clean step deploy.erase failed',
            ),
            'node-2': _node('node-2', 'available'),
        }
    )
    action, event = _event(ctx, failed)
    assert event['result'] == 'Error' and event['finish_time'] is not None
    assert 'Clean step deploy.erase failed' in event['traceback']
    assert event['host'] == 'ironic-compute'
    assert action['message'] == 'Error'
    action, event = _event(ctx, cleaned)
    assert (event['result'], event['traceback']) == ('Success', None)
    assert json.loads(path.read_text()) == {}
