"""A state reset ends the moves it strands; a new move waits until an
older one of the server ends (issue 29).

Real services in process (local driver, SQLite, inproc bus); the state a
crash or a lost request leaves is written as it would be, the rest is
the real code.
"""

from nova_lite.common import states
from nova_lite.db import compute_nodes as node_db
from nova_lite.db import instances as instance_db
from nova_lite.db import migrations as migration_db
from nova_lite.tests.functional import test_move
from nova_lite.tests.functional import test_move_recovery
from nova_lite.tests.functional.test_evacuate import _restart
from nova_lite.tests.functional.test_evacuation_safety import _boot_on
from nova_lite.tests.functional.test_evacuation_safety import _stop
from nova_lite.tests.functional.test_move import _action
from nova_lite.tests.functional.test_move import _ctx
from nova_lite.tests.functional.test_move import _disk
from nova_lite.tests.functional.test_move import _instance
from nova_lite.tests.functional.test_move import _migration
from nova_lite.tests.functional.test_move import _node
from nova_lite.tests.functional.test_move import _wait_status

C1, C2 = 'compute-1', 'compute-2'
# The fixture, by its name: two computes, flavors f1 and f2, an image.
client = test_move.client


def _left_open(uuid: str, status: str) -> int:
    """A migration of the server that a flow left ``status`` while the
    server has no task (the state the reset of issue 29 left)."""
    inst, node = _instance(uuid), _node(C2)
    row = migration_db.migration_create(
        _ctx(),
        {
            'uuid': uuid[:-12] + 'e' * 12,
            'instance_uuid': uuid,
            'migration_type': 'migration',
            'status': status,
            'source_compute': C1,
            'source_node': inst['node'],
            'dest_compute': C2,
            'dest_node': node['hypervisor_hostname'],
            'dest_compute_id': node['id'],
            'old_flavor_id': 'f1',
            'new_flavor_id': 'f1',
        },
    )
    return row['id']


def test_a_new_move_is_refused_while_an_older_one_is_open(client):
    uuid = _boot_on(client, C1, 'open')['id']
    migration_id = _left_open(uuid, 'pre-migrating')
    for body in ({'migrate': None}, {'resize': {'flavorRef': 'f2'}}):
        resp = _action(client, uuid, body)
        assert resp.status_int == 409, resp.text
        assert 'still pre-migrating' in resp.text, resp.text
    assert _instance(uuid)['task_state'] is None
    assert migration_db.migration_transition(
        _ctx(), migration_id, ('pre-migrating',), 'error'
    )
    assert _action(client, uuid, {'migrate': None}).status_int == 202
    client.wait(
        lambda: (
            migration_db.migration_get_all(_ctx(), {'instance_uuid': uuid})[0][
                'status'
            ]
            == 'finished'
        ),
        'the new migration finished',
    )


def test_a_reset_ends_a_claimed_move_and_the_next_one_completes(client):
    """Issue 29's second defect, in process: claimed on compute-2,
    whose request to the source was lost; the reset ends it (and its
    claim), and a resize started afterwards is the move that ends."""
    uuid = _boot_on(client, C1, 'claimed')['id']
    _stop(client, C2)
    migration_id = _left_open(uuid, 'pre-migrating')
    instance_db.instance_update(
        _ctx(),
        uuid,
        {
            'task_state': states.RESIZE_PREP,
            'old_flavor': _instance(uuid)['flavor'],
            'new_flavor': _instance(uuid)['flavor'],
        },
    )
    resp = _action(client, uuid, {'os-resetState': {'state': 'active'}})
    assert resp.status_int == 202, resp.text
    assert _migration(uuid)['status'] == 'error'
    assert _instance(uuid)['task_state'] is None
    assert (
        _action(client, uuid, {'resize': {'flavorRef': 'f2'}}).status_int
        == 202
    )
    _restart(client, C2)
    _wait_status(client, uuid, 'VERIFY_RESIZE')
    rows = {
        m['id']: m['status']
        for m in migration_db.migration_get_all(
            _ctx(), {'instance_uuid': uuid}
        )
    }
    assert rows.pop(migration_id) == 'error'
    assert list(rows.values()) == ['finished']


def test_a_reset_ends_a_move_whose_disks_were_sent(client):
    """compute-1 sent the disks and compute-2 did not finish (it is
    down): a reset to active ends the move ``error``, compute-1 puts
    its copy back in place, and compute-2's copy is reaped once it
    runs again (the instance lives on compute-1)."""
    _stop(client, C2)
    uuid = test_move_recovery._sent_but_not_finished(
        client, 'sent', states.RESIZE_MIGRATED
    )
    # The claim counts on the destination (as a claim would have left).
    before = node_db.compute_node_refresh_usage(_ctx(), _node(C2)['id'])
    assert before['running_vms'] == 1
    resp = _action(client, uuid, {'os-resetState': {'state': 'active'}})
    assert resp.status_int == 202, resp.text
    assert _migration(uuid)['status'] == 'error'
    # No longer counted on the destination it claimed.
    assert _node(C2)['running_vms'] == 0
    _restart(client, C1)
    assert _disk(client, C1, uuid).is_file()
    assert not _disk(client, C1, uuid + '_resize').exists()
    _restart(client, C2)
    client.wait(
        lambda: not _disk(client, C2, uuid).exists(),
        'the copy left on compute-2 reaped',
    )
    inst = _instance(uuid)
    assert (inst['host'], inst['vm_state'], inst['task_state']) == (
        C1,
        states.ACTIVE,
        None,
    )
    assert _disk(client, C1, uuid).is_file()
    assert _migration(uuid)['status'] == 'error'
