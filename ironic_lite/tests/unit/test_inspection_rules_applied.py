"""Inspection rules (API 1.96) applied when an inspection's data is
processed (``continue_inspection``, 1.84): the rules of the database and
the built-in ones, highest priority first, before the data is stored; a
``fail`` action or a broken rule fails the inspection with the reason.
Real SQLite, the RPC endpoint called directly, the fake inspect
interface made to take agent data."""

import pytest

from ironic_lite import exception
from ironic_lite.common import states
from ironic_lite.conductor import ramdisk
from ironic_lite.db import inspection_rules as db_rules
from ironic_lite.db import node_inventory
from ironic_lite.db import node_traits
from ironic_lite.db import nodes as db_nodes
from ironic_lite.drivers import fake_standard
from ironic_lite.tests.unit import make_conf
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_manager import Unwrapped
from ironic_lite.tests.unit.test_task_manager import HOLDER
from ironic_lite.tests.unit.test_task_manager import HOST
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node

conf = fixtures.conf
pool = fixtures.pool

INVENTORY = {
    'system_vendor': {'manufacturer': 'Dell Inc.'},
    'cpu': {'count': 8, 'architecture': 'x86_64'},
    'interfaces': [{'mac_address': '52:54:00:12:34:56'}],
    'bmc_address': '192.0.2.10',
}


@pytest.fixture(autouse=True)
def takes_data(monkeypatch):
    def take(self, task, inventory, plugin_data):
        return None

    monkeypatch.setattr(fake_standard.FakeInspect, 'continue_inspection', take)


def agents(conf):
    return Unwrapped(ramdisk.RamdiskManager(conf, HOLDER))


def waiting(ctx):
    return make_node(
        ctx,
        provision_state=states.INSPECTWAIT,
        target_provision_state=states.MANAGEABLE,
        properties={},
    )


def rule(ctx, actions, conditions=(), priority=0, **values):
    return db_rules.create(
        ctx,
        {
            'actions': list(actions),
            'conditions': list(conditions),
            'priority': priority,
            'phase': 'main',
            'sensitive': False,
            **values,
        },
    )


def test_matching_rules_change_the_node_before_the_data_is_stored(ctx, conf):
    rule(
        ctx,
        [
            {'op': 'add-trait', 'args': {'name': 'CUSTOM_DELL'}},
            {
                'op': 'set-attribute',
                'args': {
                    'path': '/properties/cpus',
                    'value': '{inventory[cpu][count]}',
                },
            },
            {
                'op': 'set-plugin-data',
                'args': {'path': 'vendor', 'value': 'dell'},
            },
        ],
        conditions=[
            {
                'op': 'contains',
                'args': {
                    'value': '{inventory[system_vendor][manufacturer]}',
                    'regex': '(?i)dell',
                },
            }
        ],
    )
    rule(
        ctx,
        [{'op': 'add-trait', 'args': {'name': 'CUSTOM_NEVER'}}],
        conditions=[{'op': 'eq', 'args': {'values': [1, 2]}}],
    )
    node = waiting(ctx)
    agents(conf).continue_inspection(ctx, node['uuid'], INVENTORY, {})
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.MANAGEABLE
    assert str(row['properties']['cpus']) == '8'
    assert node_traits.traits_of(ctx, [node['id']])[node['id']] == [
        'CUSTOM_DELL'
    ]
    stored = node_inventory.get(ctx, node['id'], node['uuid'])
    assert stored['plugin_data'] == {'vendor': 'dell'}


def test_higher_priority_runs_first(ctx, conf):
    rule(
        ctx,
        [
            {
                'op': 'set-attribute',
                'args': {'path': '/extra/order', 'value': 'low'},
            }
        ],
        priority=1,
    )
    rule(
        ctx,
        [
            {
                'op': 'set-attribute',
                'args': {'path': '/extra/order', 'value': 'high'},
            }
        ],
        priority=50,
    )
    node = waiting(ctx)
    agents(conf).continue_inspection(ctx, node['uuid'], INVENTORY, {})
    # The low priority rule ran last: its value stays.
    assert db_nodes.node_get(ctx, node['id'])['extra'] == {'order': 'low'}


def test_a_fail_action_fails_the_inspection(ctx, conf):
    rule(ctx, [{'op': 'fail', 'args': {'msg': 'not a Dell we know'}}])
    node = waiting(ctx)
    with pytest.raises(exception.HardwareInspectionFailure):
        agents(conf).continue_inspection(ctx, node['uuid'], INVENTORY, {})
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.INSPECTFAIL
    assert 'not a Dell we know' in row['last_error']
    assert row['reservation'] is None


def test_built_in_rules_apply_with_those_of_the_api(ctx, tmp_path):
    path = tmp_path / 'rules.yaml'
    path.write_text(
        '- description: every node gets a trait\n'
        '  actions:\n'
        '  - {op: add-trait, args: {name: CUSTOM_BUILT_IN}}\n'
    )
    conf = make_conf(host=HOST, inspection_rules__built_in_rules=str(path))
    rule(ctx, [{'op': 'add-trait', 'args': {'name': 'CUSTOM_API'}}])
    node = waiting(ctx)
    agents(conf).continue_inspection(ctx, node['uuid'], INVENTORY, {})
    assert node_traits.traits_of(ctx, [node['id']])[node['id']] == [
        'CUSTOM_API',
        'CUSTOM_BUILT_IN',
    ]


def test_a_broken_built_in_rules_file_fails_the_inspection(ctx, tmp_path):
    path = tmp_path / 'rules.yaml'
    path.write_text('not: a list\n')
    conf = make_conf(host=HOST, inspection_rules__built_in_rules=str(path))
    node = waiting(ctx)
    with pytest.raises(exception.HardwareInspectionFailure):
        agents(conf).continue_inspection(ctx, node['uuid'], INVENTORY, {})
    row = db_nodes.node_get(ctx, node['id'])
    assert row['provision_state'] == states.INSPECTFAIL
    assert str(path) in row['last_error']
