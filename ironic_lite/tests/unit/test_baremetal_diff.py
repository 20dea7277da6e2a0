"""tools/baremetal_diff: normalization, comparison, scenarios and the
report, without servers."""

import json
from pathlib import Path
import sys

import pytest

TOOLS = Path(__file__).resolve().parents[3] / 'tools'
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))

from baremetal_diff import compare  # noqa: E402
from baremetal_diff import report  # noqa: E402
from baremetal_diff import runner  # noqa: E402
from baremetal_diff import scenarios  # noqa: E402
from baremetal_diff import servers  # noqa: E402

UUID_A = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
UUID_B = '9f6f3a2c-0a4e-4c43-9a86-2a3f8c4c1e1a'


def _node(uuid, host='http://127.0.0.1:16385', **extra):
    body = {
        'uuid': uuid,
        'provision_state': 'enroll',
        'created_at': '2026-11-24T19:48:29+00:00',
        'driver_internal_info': {'x': 1},
        'links': [{'href': f'{host}/v1/nodes/{uuid}', 'rel': 'self'}],
    }
    body.update(extra)
    return body


def test_normalize_ids_hosts_and_timestamps():
    assert (
        compare.normalize_value(f'http://127.0.0.1:16385/v1/nodes/{UUID_A}')
        == '<host>/v1/nodes/<uuid>'
    )
    assert (
        compare.normalize_value('2026-11-24T19:48:29.1+00:00') == '<timestamp>'
    )
    assert compare.normalize_value(['a', {'k': UUID_B}]) == [
        'a',
        {'k': '<uuid>'},
    ]
    assert compare.normalize_value(3) == 3


def test_same_shape_with_different_ids_hosts_and_times():
    up = compare.shape_of(200, _node(UUID_A))
    lite = compare.shape_of(
        200,
        _node(
            UUID_B,
            host='http://127.0.0.1:16386',
            created_at='2020-01-01T00:00:00',
        ),
    )
    assert not compare.compare(up, lite)


def test_missing_and_extra_keys_recursively():
    up = compare.shape_of(200, _node(UUID_A, extra={'a': 1}, owner=None))
    lite = compare.shape_of(200, _node(UUID_A, extra={'b': 1}))
    diff = compare.compare(up, lite)
    assert diff.only_upstream == ['extra.a', 'owner']
    assert diff.only_lite == ['extra.b']
    assert diff.status is None


def test_compared_values_and_presence():
    up = compare.shape_of(
        200, _node(UUID_A, last_error='boom', power_state='power on')
    )
    lite = compare.shape_of(
        200,
        _node(
            UUID_A,
            last_error=None,
            power_state='power off',
            provision_state='available',
        ),
    )
    diff = compare.compare(up, lite)
    assert diff.values == {
        'last_error': ('set', 'null'),
        'power_state': ('power on', 'power off'),
        'provision_state': ('enroll', 'available'),
    }


def test_values_not_compared_are_ignored():
    up = compare.shape_of(200, {'description': 'a', 'uuid': UUID_A})
    lite = compare.shape_of(200, {'description': 'b', 'uuid': UUID_B})
    assert not compare.compare(up, lite)


def test_opaque_objects_compare_by_presence_only():
    up = compare.shape_of(200, _node(UUID_A))
    lite = compare.shape_of(
        200, _node(UUID_A, driver_internal_info={'other': 2})
    )
    assert not compare.compare(up, lite)
    body = _node(UUID_A)
    del body['driver_internal_info']
    diff = compare.compare(up, compare.shape_of(200, body))
    assert diff.only_upstream == ['driver_internal_info']


def test_status_difference_keeps_keys_but_not_values():
    up = compare.shape_of(200, _node(UUID_A))
    lite = compare.shape_of(404, {'error_message': {'faultstring': 'x'}})
    diff = compare.compare(up, lite)
    assert diff.status == (200, 404)
    assert 'uuid' in diff.only_upstream
    assert diff.only_lite == ['error_message', 'error_message.faultstring']
    assert diff.values == {}


def test_list_elements_merge_and_uneven_lengths_report_length_only():
    up = compare.shape_of(200, {'nodes': [_node(UUID_A), _node(UUID_B)]})
    lite = compare.shape_of(200, {'nodes': [_node(UUID_A)]})
    diff = compare.compare(up, lite)
    assert diff.values == {'nodes#len': (2, 1)}
    assert not diff.only_upstream and not diff.only_lite


def test_list_order_of_compared_values_matters():
    a = _node(UUID_A, name='a')
    b = _node(UUID_B, name='b')
    up = compare.shape_of(200, {'nodes': [a, b]})
    lite = compare.shape_of(200, {'nodes': [b, a]})
    diff = compare.compare(up, lite)
    assert diff.values['nodes[].name'] == (['a', 'b'], ['b', 'a'])


def test_error_message_string_is_parsed():
    raw = json.dumps(
        {
            'error_message': json.dumps(
                {'faultstring': 'no', 'faultcode': 'Client', 'debuginfo': None}
            )
        }
    ).encode()
    body = compare.decode_body(raw, 'application/json')
    shape = compare.shape_of(400, body)
    assert 'error_message.faultstring' in shape.paths


@pytest.mark.parametrize(
    'raw,ctype,kind',
    [
        (b'', None, '<empty>'),
        (b'  ', 'application/json', '<empty>'),
        (b'<html>', 'text/html; charset=utf-8', '<non-json text/html>'),
    ],
)
def test_body_kinds(raw, ctype, kind):
    shape = compare.shape_of(204, compare.decode_body(raw, ctype))
    assert shape.body_kind == kind
    assert compare.compare(
        shape, compare.shape_of(204, {'a': 1})
    ).body_kind == (kind, 'json')


def test_headers_presence_and_selected_values():
    up = compare.shape_of(
        201,
        {},
        {
            'Location': 'http://a/v1/nodes/x',
            'X-OpenStack-Ironic-API-Version': '1.1',
            'Content-Length': '3',
        },
        ['x-openstack-ironic-api-version'],
    )
    lite = compare.shape_of(
        201,
        {},
        {'X-OpenStack-Ironic-API-Version': '1.2'},
        ['x-openstack-ironic-api-version'],
    )
    diff = compare.compare(up, lite)
    assert diff.only_upstream == ['header:location']
    assert diff.values == {
        'header:x-openstack-ironic-api-version': ('1.1', '1.2')
    }


def test_substitute_and_dig():
    variables = {'node': UUID_A, 'run': 'abc'}
    assert scenarios.substitute(
        {'p': '/v1/nodes/${node}', 'l': ['n-${run}', 3]}, variables
    ) == {'p': f'/v1/nodes/{UUID_A}', 'l': ['n-abc', 3]}
    with pytest.raises(KeyError):
        scenarios.substitute('/v1/nodes/${missing}', variables)
    assert scenarios.dig({'a': [{'b': 1}]}, 'a.0.b') == 1
    assert scenarios.dig({'a': 1}, 'a.b') is None


def test_header_version_and_node_stable():
    side = scenarios.Side('x', 'http://127.0.0.1:1', max_version='1.115')
    assert scenarios.header_version('max', side) == '1.115'
    assert scenarios.header_version('none', side) is None
    assert scenarios.header_version(None, side) is None
    assert scenarios.header_version('1.31', side) == '1.31'
    assert scenarios.node_stable(
        {'provision_state': 'available', 'target_power_state': None}
    )
    assert not scenarios.node_stable({'provision_state': 'cleaning'})
    assert not scenarios.node_stable(
        {'provision_state': 'available', 'target_power_state': 'power on'}
    )


def test_wait_until_gives_up():
    calls = []
    assert not scenarios.wait_until(
        lambda: calls.append(1), lambda _: False, timeout=0.05, interval=0.01
    )
    assert calls
    assert scenarios.wait_until(lambda: 1, lambda v: v == 1, timeout=0)


def test_load_expands_versions(tmp_path):
    path = tmp_path / 's.yaml'
    path.write_text(
        'sequences:\n'
        '- {name: a, resource: nodes, versions: ["1.1", max],'
        ' steps: [{path: /v1}]}\n'
        '- {name: b, steps: [{path: /}]}\n'
    )
    seqs = scenarios.load(str(path))
    assert [s['name'] for s in seqs] == ['a@1.1', 'a@max', 'b']
    assert [s['version'] for s in seqs] == ['1.1', 'max', None]
    assert seqs[2]['resource'] == 'other'
    path.write_text('steps: []\n')
    with pytest.raises(scenarios.ScenarioError):
        scenarios.load(str(path))


def test_shipped_scenarios_load():
    seqs = scenarios.load(str(TOOLS / 'baremetal_diff' / 'scenarios.yaml'))
    resources = {s['resource'] for s in seqs}
    assert {
        'nodes',
        'drivers',
        'chassis',
        'ports',
        'portgroups',
        'volume',
        'conductors',
        'allocations',
        'deploy_templates',
        'runbooks',
        'traits',
        'vifs',
        'validate',
        'states',
        'versions',
    } <= resources
    for seq in seqs:
        for step in seq['steps']:
            assert step.get('method', 'GET') in {
                'GET',
                'POST',
                'PUT',
                'PATCH',
                'DELETE',
            }, step
            assert step['path'].startswith('/'), step


def _result(step='01 x', differs=True, known=None):
    diff = (
        compare.Difference(status=(200, 404))
        if differs
        else compare.Difference()
    )
    return runner.Result(
        sequence='nodes@1.1',
        resource='nodes',
        step=step,
        method='GET',
        path='/v1/nodes',
        version='1.1',
        body=None,
        statuses=(200, 404 if differs else 200),
        difference=diff,
        known=known,
    )


def test_known_differences_match_by_glob(tmp_path):
    path = tmp_path / 'known.yaml'
    path.write_text(
        'differences:\n- {match: "nodes@*/01 *", reason: not yet}\n'
    )
    known = runner.load_known(str(path))
    results = [_result('01 x'), _result('02 y'), _result('01 z', False)]
    runner.apply_known(results, known)
    assert [r.known for r in results] == ['not yet', None, None]
    assert report.summary(results) == (3, 2, 1)
    path.write_text('differences:\n- {match: "x"}\n')
    with pytest.raises(scenarios.ScenarioError):
        runner.load_known(str(path))
    assert runner.load_known('') == []


def test_report_lists_statuses_and_keys():
    result = _result()
    result.difference.only_upstream = ['uuid']
    result.difference.only_lite = ['error_message']
    text = report.render(
        [result, _result('02 same', False)], {'upstream': 'u', 'lite': 'l'}
    )
    assert '2 requests compared, 1 differ' in text
    assert '| nodes | 2 | 1 | 1 | 0 |' in text
    assert 'status: upstream 200, ironic_lite 404 (DIFFERENT)' in text
    assert 'keys only upstream has: `uuid`' in text
    assert 'keys only ironic_lite has: `error_message`' in text
    assert '- 02 same: same (status 200)' in text


def test_missing_oracle_venv_says_how_to_create_it(tmp_path):
    with pytest.raises(servers.ServerError) as exc:
        servers.check_oracle_venv(tmp_path / 'oracle')
    assert f'python3 -m venv {tmp_path}/oracle' in str(exc.value)
    assert 'pip install ironic==39.0.0' in str(exc.value)


def test_oracle_config_runs_without_networking(tmp_path):
    text = servers.oracle_config(tmp_path, 16385)
    for line in (
        'auth_strategy = noauth',
        'rpc_transport = none',
        'dhcp_provider = none',
        'port = 16385',
        f'connection = sqlite:///{tmp_path}/ironic.sqlite',
        'enabled_hardware_types = fake-hardware',
    ):
        assert line in text


def test_known_with_ignore_accepts_only_those_parts():
    result = _result()
    result.difference = compare.Difference(
        status=(500, 400),
        only_upstream=['links[].href', 'owner'],
        values={'links[].href': ('a', 'b')},
    )
    entry = runner.Known('nodes@*', 'cosmetic', ['links[].href'])
    entry.accept(result)
    assert result.accepted == ['links[].href', 'links[].href']
    assert result.known is None  # status and owner remain
    assert result.difference.only_upstream == ['owner']
    runner.Known('nodes@*', 'bug', ['http-status', 'owner']).accept(result)
    assert result.known == 'bug'
    assert result.reasons == ['cosmetic', 'bug']
    text = '\n'.join(report.describe(result))
    assert 'accepted as known: `links[].href`' in text
    assert 'cosmetic; bug' in text


def test_shipped_known_differences_load():
    known = runner.load_known(
        str(TOOLS / 'baremetal_diff' / 'known_differences.yaml')
    )
    assert known and all(k.reason for k in known)


def test_overview_leaves_out_setup_steps_and_keeps_error_keys():
    port = _result('02 create port')
    port.difference = compare.Difference(
        only_upstream=[
            'ports[].links[].href',
            'ports[].uuid',
            'error_message.title',
        ],
        only_lite=['error_message.faultstring'],
    )
    node = _result('01 create node')
    node.setup = True
    node.difference = compare.Difference(only_upstream=['owner'])
    status = _result('03 x')
    lines = report.overview([port, node, status])
    assert lines[0] == '- requests with a different status: 1'
    assert '`error_message.title`, `ports[].links`, `ports[].uuid`' in lines[1]
    assert 'owner' not in ' '.join(lines)
    assert lines[2].endswith('`error_message.faultstring`')
