"""The actions of inspection rules, on a real SQLite node held by a
real task, and api-call against a real HTTP server on 127.0.0.1."""

import http.server
import logging
import threading

import pytest

from ironic_lite import exception
from ironic_lite.db import node_traits
from ironic_lite.db import nodes as db_nodes
from ironic_lite.db import ports as db_ports
from ironic_lite.inspection_rules import actions
from ironic_lite.inspection_rules import base
from ironic_lite.tests.unit import test_inspection_rules_engine as common
from ironic_lite.tests.unit.test_inspection_rules_engine import make_run
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401

conf = common.conf
node = common.node
task = common.task

MAC = '52:54:00:AA:BB:CC'


def run_action(task, op, args, plugin_data=None, **action):
    run = make_run(task, plugin_data=plugin_data)
    actions.run_action(run, {'op': op, 'args': args, **action})
    return run


def saved(ctx, node):
    return db_nodes.node_get(ctx, node['id'])


def failure_of(task, op, args):
    with pytest.raises(base.RuleActionExecutionFailure) as info:
        run_action(task, op, args)
    prefix = 'Inspection rule action execution failed. Reason: '
    assert str(info.value).startswith(prefix)
    return str(info.value)[len(prefix) :]


# -- fail, log


def test_fail(task):
    with pytest.raises(
        exception.HardwareInspectionFailure, match='Reason: no good'
    ):
        run_action(task, 'fail', {'msg': 'no good'})


def test_log(task, caplog):
    caplog.set_level(logging.DEBUG)
    run_action(task, 'log', {'msg': 'BMC at {inventory[bmc_address]}'})
    run_action(task, 'log', ['quiet', 'DEBUG'])
    messages = [
        (r.levelname, r.getMessage())
        for r in caplog.records
        if r.name == actions.__name__
    ]
    uuid = task.node.uuid
    assert messages == [
        ('INFO', f'Node {uuid}: BMC at 192.168.1.10'),
        ('DEBUG', f'Node {uuid}: quiet'),
    ]


def test_log_level_must_be_known(task):
    with pytest.raises(base.InspectionRuleExecutionFailure) as info:
        run_action(task, 'log', {'msg': 'x', 'level': 'loud'})
    assert str(info.value) == (
        "Invalid log level: loud. Choose from {'debug', 'info', "
        "'warning', 'error', 'critical'}"
    )


# -- node attributes


def test_set_attribute(ctx, task, node):
    run_action(
        task,
        'set-attribute',
        {
            'path': '/driver_info/redfish_address',
            'value': 'https://{inventory[bmc_address]}',
        },
    )
    run_action(task, 'set-attribute', {'path': 'extra.a.b', 'value': 1})
    run_action(
        task, 'set-attribute', {'path': '/description', 'value': '{node.name}'}
    )
    row = saved(ctx, node)
    assert row['driver_info'] == {
        'ipmi_address': '10.0.0.5',
        'redfish_address': 'https://192.168.1.10',
    }
    assert row['extra'] == {'tags': ['a'], 'a': {'b': 1}}
    assert row['description'] == 'node-1'


@pytest.mark.parametrize(
    'path, error',
    [
        ('/uuid', 'inspection rules cannot change uuid'),
        ('/reservation', 'inspection rules cannot change reservation'),
        ('/no_such', "nodes have no field 'no_such'"),
        ('/name/x', "'str' object does not support item assignment"),
        ('/name/x/y', "'str' object has no attribute 'setdefault'"),
    ],
)
def test_set_attribute_refused(ctx, task, node, path, error):
    message = failure_of(task, 'set-attribute', {'path': path, 'value': 'v'})
    assert message == f'Failed to set attribute {path} with value v: {error}'
    assert saved(ctx, node)['uuid'] == node['uuid']


def test_a_failed_write_leaves_the_node_as_it_was(ctx, task, node):
    # maintenance is a boolean column: the write fails.
    message = failure_of(
        task, 'set-attribute', {'path': '/maintenance', 'value': 'maybe'}
    )
    assert message.startswith(
        'Failed to set attribute /maintenance with value maybe: '
    )
    assert task.node.maintenance is False
    task.node.extra['after'] = 1
    task.save()
    assert saved(ctx, node)['extra'] == {'tags': ['a'], 'after': 1}


def test_extend_attribute(ctx, task, node):
    run_action(task, 'extend-attribute', {'path': '/extra/tags', 'value': 'b'})
    run_action(
        task,
        'extend-attribute',
        {'path': '/extra/tags', 'value': 'b', 'unique': True},
    )
    run_action(
        task,
        'extend-attribute',
        {'path': 'properties.new.list', 'value': '{node.name}'},
    )
    row = saved(ctx, node)
    assert row['extra']['tags'] == ['a', 'b']
    assert row['properties']['new'] == {'list': ['node-1']}
    message = failure_of(
        task, 'extend-attribute', {'path': '/properties/cpus', 'value': 1}
    )
    assert message == (
        'Failed to extend attribute /properties/cpus: Cannot '
        'extend non-list attribute /properties/cpus with '
        'value 1'
    )


def test_del_attribute(ctx, task, node):
    run_action(task, 'del-attribute', {'path': '/driver_info/ipmi_address'})
    run_action(task, 'del-attribute', {'path': '/extra'})
    run_action(task, 'set-attribute', {'path': '/description', 'value': 'd'})
    run_action(task, 'del-attribute', {'path': 'description'})
    row = saved(ctx, node)
    assert (row['driver_info'], row['extra'], row['description']) == (
        {},
        {},
        None,
    )
    message = failure_of(task, 'del-attribute', {'path': '/extra/missing'})
    assert message == "Failed to delete attribute at /extra/missing: 'missing'"


# -- capabilities, traits


def test_capabilities(ctx, task, node):
    run_action(task, 'set-capability', {'name': 'boot_mode', 'value': 'uefi'})
    run_action(
        task,
        'set-capability',
        {'name': 'arch', 'value': '{inventory[cpu][architecture]}'},
    )
    assert saved(ctx, node)['properties']['capabilities'] == (
        'boot_mode:uefi,arch:x86_64'
    )
    run_action(task, 'unset-capability', {'name': 'boot_mode'})
    assert saved(ctx, node)['properties']['capabilities'] == 'arch:x86_64'
    message = failure_of(task, 'set-capability', {'name': 'n', 'value': 1})
    assert message == (
        'Failed to set capability n: sequence item 1: '
        'expected str instance, int found'
    )
    assert task.node.properties['capabilities'] == 'arch:x86_64'


def test_unset_capability_without_capabilities(ctx, task, node):
    run_action(task, 'unset-capability', {'name': 'boot_mode'})
    assert 'capabilities' not in saved(ctx, node)['properties']


def test_traits(ctx, task, node):
    run_action(task, 'add-trait', {'name': 'CUSTOM_A'})
    run_action(task, 'add-trait', {'name': 'CUSTOM_A'})
    run_action(task, 'add-trait', ['CUSTOM_B'])
    assert node_traits.traits_of(ctx, [node['id']])[node['id']] == [
        'CUSTOM_A',
        'CUSTOM_B',
    ]
    run_action(task, 'remove-trait', {'name': 'CUSTOM_A'})
    run_action(task, 'remove-trait', {'name': 'CUSTOM_MISSING'})
    assert node_traits.traits_of(ctx, [node['id']])[node['id']] == ['CUSTOM_B']


def test_too_many_traits(ctx, task, node):
    node_traits.set_traits(
        ctx, node['id'], node['uuid'], [f'CUSTOM_{i}' for i in range(50)]
    )
    message = failure_of(task, 'add-trait', {'name': 'CUSTOM_X'})
    assert message.startswith(
        'Failed to add new trait CUSTOM_X: Could not modify traits for node'
    )


# -- plugin data


def test_plugin_data_actions(task):
    data = {'keep': 1, 'tags': 'not a list'}
    run_action(
        task,
        'set-plugin-data',
        {'path': 'a.b', 'value': '{inventory[bmc_address]}'},
        plugin_data=data,
    )
    run_action(
        task,
        'extend-plugin-data',
        {'path': 'x.list', 'value': 1},
        plugin_data=data,
    )
    run_action(
        task,
        'extend-plugin-data',
        {'path': 'x.list', 'value': 1, 'unique': True},
        plugin_data=data,
    )
    run_action(
        task,
        'extend-plugin-data',
        {'path': 'x.list', 'value': 1},
        plugin_data=data,
    )
    assert data == {
        'keep': 1,
        'tags': 'not a list',
        'a': {'b': '192.168.1.10'},
        'x': {'list': [1, 1]},
    }
    run_action(task, 'unset-plugin-data', {'path': 'a.b'}, plugin_data=data)
    run_action(task, 'unset-plugin-data', {'path': 'keep'}, plugin_data=data)
    run_action(
        task, 'unset-plugin-data', {'path': 'no.such'}, plugin_data=data
    )
    assert data == {'tags': 'not a list', 'x': {'list': [1, 1]}}
    with pytest.raises(
        base.RuleActionExecutionFailure,
        match='Failed to extend plugin data at tags: ',
    ):
        run_action(
            task,
            'extend-plugin-data',
            {'path': 'tags', 'value': 1},
            plugin_data=data,
        )


def test_plugin_data_arguments_upstream_stored(task):
    data = {}
    run_action(
        task,
        'set-plugin-data',
        {'path': 'a', 'value': 1, 'plugin_data': {}},
        plugin_data=data,
    )
    assert data == {'a': 1}


# -- ports


@pytest.fixture
def port(ctx, node):
    return db_ports.create(
        ctx,
        {
            'node_id': node['id'],
            'address': MAC.lower(),
            'extra': {'tags': ['x']},
        },
    )


def test_port_attributes_by_uuid_and_mac(ctx, task, port):
    run_action(
        task,
        'set-port-attribute',
        {
            'port_id': port['uuid'],
            'path': '/physical_network',
            'value': 'physnet1',
        },
    )
    run_action(
        task,
        'set-port-attribute',
        {
            'port_id': MAC,
            'path': 'local_link_connection.switch_id',
            'value': '{inventory[interfaces][0][mac_address]}',
        },
    )
    run_action(
        task,
        'extend-port-attribute',
        {'port_id': MAC, 'path': '/extra/tags', 'value': 'y'},
    )
    run_action(
        task,
        'extend-port-attribute',
        {'port_id': MAC, 'path': '/extra/tags', 'value': 'y', 'unique': True},
    )
    row = db_ports.get(ctx, port['uuid'])
    assert row['physical_network'] == 'physnet1'
    assert row['local_link_connection'] == {'switch_id': '52:54:00:aa:bb:cc'}
    assert row['extra'] == {'tags': ['x', 'y']}
    run_action(
        task,
        'del-port-attribute',
        {'port_id': port['uuid'], 'path': '/extra/tags'},
    )
    run_action(
        task,
        'del-port-attribute',
        {'port_id': port['uuid'], 'path': '/physical_network'},
    )
    row = db_ports.get(ctx, port['uuid'])
    assert (row['extra'], row['physical_network']) == ({}, None)


def test_port_errors(ctx, task, port):
    with pytest.raises(exception.PortNotFound):
        run_action(
            task,
            'set-port-attribute',
            {'port_id': '52:54:00:00:00:00', 'path': '/extra/a', 'value': 1},
        )
    message = failure_of(
        task,
        'set-port-attribute',
        {'port_id': MAC, 'path': '/node_id', 'value': 9},
    )
    assert message == (
        f'Failed to set attribute /node_id for port {MAC}: '
        'inspection rules cannot change node_id'
    )
    message = failure_of(
        task, 'del-port-attribute', {'port_id': MAC, 'path': '/extra/none'}
    )
    assert message == (
        f"Failed to delete attribute /extra/none for port {MAC}: 'none'"
    )
    message = failure_of(
        task,
        'extend-port-attribute',
        {'port_id': MAC, 'path': '/bogus', 'value': 1},
    )
    assert message == (
        f'Failed to extend attribute /bogus for port {MAC}: '
        "ports have no field 'bogus'"
    )


def test_ports_of_other_nodes_are_not_found(ctx, task):
    other = common.make_node(ctx)
    db_ports.create(ctx, {'node_id': other['id'], 'address': MAC.lower()})
    with pytest.raises(exception.PortNotFound):
        run_action(
            task, 'del-port-attribute', {'port_id': MAC, 'path': '/extra'}
        )


# -- loops


def test_action_loops(ctx, task, node):
    run_action(
        task,
        'set-attribute',
        {'path': '{item[path]}', 'value': '{item[value]}'},
        loop=[
            {'path': '/driver_info/ipmi_username', 'value': 'admin'},
            {
                'path': 'driver_info.ipmi_address',
                'value': '{inventory[bmc_address]}',
            },
        ],
    )
    run_action(task, 'add-trait', {'name': 'CUSTOM_{item}'}, loop=['A', 'B'])
    run_action(
        task,
        'set-attribute',
        {'path': '/extra/{item[k]}', 'value': '{item[v]}'},
        loop={'k': 'one', 'v': 'dict loop'},
    )
    row = saved(ctx, node)
    assert row['driver_info'] == {
        'ipmi_username': 'admin',
        'ipmi_address': '192.168.1.10',
    }
    assert row['extra']['one'] == 'dict loop'
    assert node_traits.traits_of(ctx, [node['id']])[node['id']] == [
        'CUSTOM_A',
        'CUSTOM_B',
    ]


# -- api-call


class Handler(http.server.BaseHTTPRequestHandler):
    answers: list[int] = []
    seen: list[tuple[str, str | None]] = []

    def do_GET(self):
        self.seen.append((self.path, self.headers.get('X-Rule')))
        status = self.answers.pop(0) if self.answers else 200
        self.send_response(status)
        self.send_header('Content-Length', '0')
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def server(monkeypatch):
    for name in ('http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY'):
        monkeypatch.delenv(name, raising=False)
    Handler.answers, Handler.seen = [], []
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f'http://127.0.0.1:{httpd.server_address[1]}'
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_api_call(task, server):
    run_action(
        task,
        'api-call',
        {'url': server + '/hook/{node.uuid}', 'headers': {'X-Rule': 'yes'}},
    )
    assert Handler.seen == [(f'/hook/{task.node.uuid}', 'yes')]


def test_api_call_retries_server_errors(task, server):
    Handler.answers = [503, 500]
    run_action(task, 'api-call', {'url': server, 'backoff_factor': 0})
    assert len(Handler.seen) == 3


def test_api_call_failures(task, server):
    Handler.answers = [404]
    message = failure_of(task, 'api-call', {'url': server + '/x'})
    assert message.startswith(
        f'Request to {server}/x failed: 404 Client Error'
    )
    Handler.answers = [500, 500]
    message = failure_of(
        task, 'api-call', {'url': server, 'retries': 1, 'backoff_factor': 0}
    )
    assert message.startswith(f'Request to {server} failed: 500 Server')
    assert len(Handler.seen) == 3
    message = failure_of(task, 'api-call', {'url': server, 'timeout': 0})
    assert message == 'Invalid parameter: timeout must be greater than zero'
    message = failure_of(task, 'api-call', {'url': server, 'retries': 'x'})
    assert message.startswith('Invalid parameter: invalid literal')


def test_api_call_unreachable(task):
    message = failure_of(
        task,
        'api-call',
        {'url': 'http://127.0.0.1:9/', 'retries': 0, 'timeout': 2},
    )
    assert message.startswith('Request to http://127.0.0.1:9/ failed: ')
