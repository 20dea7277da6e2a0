"""Host aggregates and server groups in the database (real SQLite)."""

from oslo_config import cfg
import pytest

from nova_lite import exception
from nova_lite.conf import quota as quota_conf
from nova_lite.db import aggregates
from nova_lite.db import server_groups


@pytest.fixture(autouse=True)
def quota_options():
    quota_conf.register_opts(cfg.CONF)


def test_create_and_read_with_hosts_and_metadata(ctx):
    agg = aggregates.create(ctx, 'rack', {'availability_zone': 'az1'})
    assert (agg['hosts'], agg['metadata'], agg['availability_zone']) == (
        [],
        {'availability_zone': 'az1'},
        'az1',
    )
    aggregates.add_host(ctx, agg['id'], 'h1')
    aggregates.add_host(ctx, agg['id'], 'h2')
    other = aggregates.create(ctx, 'plain', {})
    listed = aggregates.get_all(ctx)
    assert [a['name'] for a in listed] == ['rack', 'plain']
    assert listed[0]['hosts'] == ['h1', 'h2']
    assert listed[1] == aggregates.get(ctx, other['id'])
    assert listed[1]['availability_zone'] is None


def test_names_are_unique_among_live_aggregates(ctx):
    agg = aggregates.create(ctx, 'rack', {})
    with pytest.raises(exception.AggregateNameExists):
        aggregates.create(ctx, 'rack', {})
    other = aggregates.create(ctx, 'other', {})
    with pytest.raises(exception.AggregateNameExists):
        aggregates.rename(ctx, other['id'], 'rack')
    aggregates.destroy(ctx, agg['id'])
    with pytest.raises(exception.AggregateNotFound):
        aggregates.get(ctx, agg['id'])
    assert aggregates.create(ctx, 'rack', {})['id'] != agg['id']


def test_metadata_set_replace_and_delete(ctx):
    agg = aggregates.create(ctx, 'rack', {'a': '1'})
    aggregates.update_metadata(ctx, agg['id'], {'a': '2', 'b': '3'})
    aggregates.update_metadata(ctx, agg['id'], {'b': None, 'gone': None})
    aggregates.update_metadata(ctx, agg['id'], {'b': '4'})
    row = aggregates.get(ctx, agg['id'])
    assert row['metadata'] == {'a': '2', 'b': '4'}
    assert row['updated_at'] is not None


def test_hosts_once_and_removal(ctx):
    agg = aggregates.create(ctx, 'rack', {})
    aggregates.add_host(ctx, agg['id'], 'h1')
    with pytest.raises(exception.AggregateHostExists):
        aggregates.add_host(ctx, agg['id'], 'h1')
    with pytest.raises(exception.AggregateHostNotFound):
        aggregates.remove_host(ctx, agg['id'], 'h2')
    aggregates.remove_host(ctx, agg['id'], 'h1')
    aggregates.add_host(ctx, agg['id'], 'h1')
    assert aggregates.get(ctx, agg['id'])['hosts'] == ['h1']
    with pytest.raises(exception.AggregateNotFound):
        aggregates.add_host(ctx, 999, 'h1')


def test_zones_of_hosts(ctx):
    a = aggregates.create(ctx, 'a', {'availability_zone': 'az1'})
    b = aggregates.create(ctx, 'b', {})
    c = aggregates.create(ctx, 'c', {'availability_zone': 'az2'})
    for agg, host in ((a, 'h1'), (b, 'h1'), (b, 'h2'), (c, 'h3')):
        aggregates.add_host(ctx, agg['id'], host)
    assert aggregates.host_zones(ctx) == {'h1': 'az1', 'h3': 'az2'}
    assert aggregates.zones_of_hosts(ctx, ['h1', 'h2']) == [(a['id'], 'az1')]
    assert aggregates.zones_of_hosts(ctx, []) == []


def _group(ctx, project='p'):
    return server_groups.create(
        ctx,
        {
            'name': 'g',
            'project_id': project,
            'user_id': 'u',
            'policy': 'affinity',
            'rules': None,
        },
    )


def test_server_group_quota(ctx):
    cfg.CONF.set_override('server_groups', 2, group='quota')
    try:
        _group(ctx)
        _group(ctx)
        with pytest.raises(exception.ServerGroupLimitExceeded):
            _group(ctx)
        _group(ctx, project='other')
    finally:
        cfg.CONF.clear_override('server_groups', group='quota')


def test_server_group_listing_and_destroy(ctx):
    mine, theirs = _group(ctx), _group(ctx, project='other')
    assert [g['uuid'] for g in server_groups.get_all(ctx, 'p', None, 0)] == [
        mine['uuid']
    ]
    assert len(server_groups.get_all(ctx, None, None, 0)) == 2
    assert server_groups.get_all(ctx, None, 1, 1)[0]['uuid'] == theirs['uuid']
    server_groups.destroy(ctx, mine['uuid'])
    with pytest.raises(exception.InstanceGroupNotFound):
        server_groups.get(ctx, mine['uuid'])
    with pytest.raises(exception.InstanceGroupNotFound):
        server_groups.destroy(ctx, mine['uuid'])
