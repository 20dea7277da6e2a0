"""Deferred delete in the database (real SQLite): soft-deleted instances
leave the project's quota usage, a restore checks the quota again in the
transaction that starts it, and the reclaim claims only soft-deleted
instances old enough, on the hosts given, once."""

import datetime

from oslo_config import cfg
from oslo_utils import uuidutils
import pytest

from lite_common import db as lite_db
from nova_lite import exception
from nova_lite.conf import quota as quota_conf
from nova_lite.db import instance_actions as actions_db
from nova_lite.db import instances
from nova_lite.db import quotas

TINY = {'instances': 1, 'cores': 1, 'ram': 512}


@pytest.fixture(autouse=True)
def quota_options():
    quota_conf.register_opts(cfg.CONF)


def _make(project_id):
    def make(index, count):
        return {
            'uuid': uuidutils.generate_uuid(),
            'project_id': project_id,
            'user_id': 'u1',
            'flavor': {'name': 'tiny'},
            'vm_state': 'active',
            'vcpus': 1,
            'memory_mb': 512,
            'root_gb': 1,
            'host': 'h1',
            'display_name': f'vm-{index}',
        }

    return make


def _soft_delete(ctx, uuid, deleted_at=None):
    return instances.instance_update(
        ctx,
        uuid,
        {
            'vm_state': 'soft-delete',
            'task_state': None,
            'deleted_at': deleted_at or lite_db.utcnow(),
        },
    )


def _restore(ctx, uuid, request_id='req-1'):
    actions_db.begin(
        ctx,
        uuid,
        {'task_state': 'restoring', 'deleted_at': None},
        {
            'action': 'restore',
            'instance_uuid': uuid,
            'request_id': request_id,
            'user_id': 'u1',
            'project_id': 'p1',
        },
        [None],
        ('soft-delete',),
        quota_project='p1',
    )


def test_soft_deleted_instances_leave_the_usage(ctx):
    one, _two = quotas.create_instances(ctx, 'p1', TINY, 2, 2, _make('p1'))
    _soft_delete(ctx, one['uuid'])
    assert quotas.project_usage(ctx, 'p1') == {
        'instances': 1,
        'cores': 1,
        'ram': 512,
    }


def test_a_restore_is_checked_against_the_quota(ctx):
    quotas.quota_set(ctx, 'p1', {'instances': 1})
    (first,) = quotas.create_instances(ctx, 'p1', TINY, 1, 1, _make('p1'))
    _soft_delete(ctx, first['uuid'])
    (second,) = quotas.create_instances(ctx, 'p1', TINY, 1, 1, _make('p1'))
    with pytest.raises(exception.TooManyInstances) as err:
        _restore(ctx, first['uuid'])
    assert 'Quota exceeded for instances' in err.value.format_message()
    # Nothing was written: no task, no action.
    row = instances.instance_get_by_uuid(ctx, first['uuid'])
    assert (row['vm_state'], row['task_state']) == ('soft-delete', None)
    assert actions_db.actions_get(ctx, first['uuid']) == []
    instances.instance_destroy(ctx, second['uuid'])
    _restore(ctx, first['uuid'])
    row = instances.instance_get_by_uuid(ctx, first['uuid'])
    assert (row['task_state'], row['deleted_at']) == ('restoring', None)
    [action] = actions_db.actions_get(ctx, first['uuid'])
    assert action['action'] == 'restore'


def test_the_reclaim_claims_old_soft_deleted_instances_once(ctx):
    rows = quotas.create_instances(ctx, 'p1', TINY, 4, 4, _make('p1'))
    old, recent, active, elsewhere = (r['uuid'] for r in rows)
    now = lite_db.utcnow()
    hour_ago = now - datetime.timedelta(hours=1)
    _soft_delete(ctx, old, hour_ago)
    _soft_delete(ctx, recent, now)
    _soft_delete(ctx, elsewhere, hour_ago)
    instances.instance_update(ctx, elsewhere, {'host': 'h2'})
    cutoff = now - datetime.timedelta(minutes=1)
    claimed = instances.claim_reclaimable(ctx, cutoff, ['h1'], 10)
    assert [row['uuid'] for row in claimed] == [old]
    assert claimed[0]['task_state'] == 'deleting'
    # Claimed once: a second pass finds nothing; a restore is refused.
    assert instances.claim_reclaimable(ctx, cutoff, ['h1'], 10) == []
    with pytest.raises(exception.UnexpectedTaskState):
        _restore(ctx, old)
    assert instances.claim_reclaimable(ctx, cutoff, [], 10) == []
    assert instances.instance_get_by_uuid(ctx, active)['task_state'] is None


def test_a_server_list_hides_soft_deleted_ones_unless_asked(ctx):
    one, two = quotas.create_instances(ctx, 'p1', TINY, 2, 2, _make('p1'))
    _soft_delete(ctx, one['uuid'])
    instances.instance_destroy(ctx, two['uuid'])

    def uuids(filters):
        return {r['uuid'] for r in instances.instance_get_all(ctx, filters)}

    assert uuids({'project_id': 'p1', 'hide_soft_deleted': True}) == set()
    assert uuids({'project_id': 'p1'}) == {one['uuid']}
    assert uuids({'project_id': 'p1', 'deleted_only': True}) == {
        one['uuid'],
        two['uuid'],
    }
