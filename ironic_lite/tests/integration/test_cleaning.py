"""Cleaning with two ironic-lite-conductor processes, end to end.

ironic-lite-api and two conductors run as separate processes over
RabbitMQ and MariaDB, driven by the real ``openstack baremetal`` CLI:
20 nodes are enrolled, managed and provided (automated cleaning), then
cleaned by hand, made to fail a step and recovered, aborted in an
asynchronous step, deployed and undeployed (tear-down cleaning), and
finally one conductor is killed with SIGKILL while its nodes clean: the
other takes them over and every node still ends ``available``.

The tests of this module run in order and share one deployment.
"""

import json
from pathlib import Path
import time
from typing import Any

import devstack_support as support
import pytest
import yaml

from lite_common.tests import integration

NODES = [f'bm-{index:02d}' for index in range(20)]
#: Seconds each synchronous fake clean step takes: long enough to watch
#: a step run and to kill a conductor in the middle of one.
STEP_DELAY = 3.0
ERASE = {'interface': 'deploy', 'step': 'erase_devices', 'args': {'passes': 1}}


def gate(name: str) -> dict[str, Any]:
    """A step that runs until the test calls ``cloud.open_gate(name)``."""
    return {
        'interface': 'deploy',
        'step': 'wait_for_gate',
        'args': {'gate': name, 'timeout': 120},
    }


@pytest.fixture(scope='module')
def cloud(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Any:
    import devstack_ironic

    workdir = tmp_path_factory.mktemp('baremetal')
    dep = devstack_ironic.start(
        workdir, db='mysql', conductors=2, step_delay=STEP_DELAY
    )
    integration.register_cloud(request, dep)
    dep.killed = set()
    try:
        yield dep
    finally:
        codes = dep.stop()
    bad = {
        name: code
        for name, code in codes.items()
        if code != 0 and name not in dep.killed
    }
    assert not bad, (
        f'services did not exit cleanly on SIGTERM: {bad}\n' + dep.log_tails()
    )


# -- helpers ---


def all_nodes(cloud: Any) -> dict[str, dict[str, Any]]:
    """Every node by name, with every field (one API call)."""
    status, body = cloud.api_call('GET', '/v1/nodes/detail')
    assert status == 200, body
    return {node['name']: node for node in body['nodes']}


def node(cloud: Any, name: str) -> dict[str, Any]:
    status, body = cloud.api_call('GET', f'/v1/nodes/{name}')
    assert status == 200, body
    return body


def wait_states(
    cloud: Any,
    names: list[str],
    state: str,
    timeout: float = 180,
    unlocked: bool = False,
) -> dict[str, dict[str, Any]]:
    """Wait until every node of ``names`` is in provision ``state`` (and
    ``unlocked``: its lock released too; a conductor saves the state
    first and releases the lock a moment later)."""

    def reached() -> dict[str, dict[str, Any]] | None:
        cloud.check_alive()
        nodes = all_nodes(cloud)
        if all(
            nodes[n]['provision_state'] == state
            and not (unlocked and nodes[n]['reservation'])
            for n in names
        ):
            return nodes
        return None

    try:
        return support.wait_for(
            reached, timeout, f'{len(names)} node(s) to be {state}'
        )
    except TimeoutError:
        states = {
            n: v['provision_state']
            for n, v in all_nodes(cloud).items()
            if n in names
        }
        raise AssertionError(f'not all {state}: {states}')


def steps_run(record: dict[str, Any]) -> list[str]:
    return list(record['driver_internal_info'].get('fake_steps_run', []))


def clean(
    cloud: Any, name: str, steps: list[dict[str, Any]], check: bool = True
) -> Any:
    """``openstack baremetal node clean``: its stdout, or with
    ``check=False`` the CompletedProcess (whatever the outcome)."""
    return cloud.baremetal(
        'node',
        'clean',
        name,
        '--clean-steps',
        json.dumps(steps),
        parse=False,
        check=check,
    )


# -- the scenario ---


def test_enroll_twenty_nodes(cloud: Any, tmp_path: Path) -> None:
    spec = {
        'nodes': [
            {
                'name': name,
                'driver': 'fake-hardware',
                'properties': {'cpus': 4, 'memory_mb': 8192, 'local_gb': 100},
            }
            for name in NODES
        ]
    }
    path = tmp_path / 'nodes.yaml'
    path.write_text(yaml.safe_dump(spec))
    cloud.baremetal('create', str(path), parse=False)
    listed = cloud.baremetal('node', 'list', '--long')
    assert sorted(n['name'] for n in listed) == NODES
    assert {n['provision_state'] for n in listed} == {'enroll'}


def test_manage_and_provide_run_automated_cleaning(cloud: Any) -> None:
    cloud.baremetal('node', 'manage', *NODES, '--wait', '300', parse=False)
    wait_states(cloud, NODES, 'manageable', timeout=10)
    cloud.baremetal('node', 'provide', *NODES, '--wait', '300', parse=False)
    nodes = wait_states(cloud, NODES, 'available', timeout=10)
    for name in NODES:
        record = nodes[name]
        # Priority order: deploy.erase_devices_metadata (99), then
        # management.verify_properties (80).
        assert steps_run(record) == [
            'erase_devices_metadata',
            'verify_properties',
        ], record
        assert record['clean_step'] in ({}, None)
        assert record['last_error'] is None
        assert record['maintenance'] is False
        assert record['reservation'] is None


def test_cleaning_steps_endpoint_lists_the_order(cloud: Any) -> None:
    status, body = cloud.api_call('GET', '/v1/nodes/bm-00/cleaning/steps')
    assert status == 200, body
    automated = [
        (s['interface'], s['step'], s['priority']) for s in body['automated']
    ]
    assert automated == [
        ('deploy', 'erase_devices_metadata', 99),
        ('management', 'verify_properties', 80),
    ]
    # Manual-only steps: priority 0, not repeated from the automated list.
    # (bios and firmware: the fake interfaces' steps, as upstream's.)
    assert sorted(s['step'] for s in body['manual']) == [
        'apply_configuration',
        'cache_bios_settings',
        'erase_devices',
        'factory_reset',
        'fail_step',
        'one_shot_work',
        'repeatable_work',
        'update',
        'wait_a_bit',
        'wait_for_gate',
    ]


def test_manual_clean_shows_progress_and_returns_to_manageable(
    cloud: Any,
) -> None:
    """The step is held by a gate until the test opens it: the power
    change is made while it certainly runs, whatever the load (a fixed
    3 s step finished first on a loaded machine)."""
    cloud.baremetal('node', 'manage', 'bm-00', '--wait', '60', parse=False)
    before = steps_run(node(cloud, 'bm-00'))
    clean(cloud, 'bm-00', [ERASE, gate('bm-00-progress')])

    def running() -> dict[str, Any] | None:
        record = node(cloud, 'bm-00')
        step = record.get('clean_step') or {}
        return record if step.get('step') == 'wait_for_gate' else None

    record = support.wait_for(
        running, 60, 'wait_for_gate to run', interval=0.2
    )
    assert record['provision_state'] == 'cleaning'
    assert record['target_provision_state'] == 'manageable'
    assert record['driver_internal_info']['clean_step_index'] == 1
    assert steps_run(record) == [*before, 'erase_devices']
    # Power changes would break the step: refused while it runs.
    refused = cloud.baremetal(
        'node', 'power', 'off', 'bm-00', parse=False, check=False
    )
    assert refused.returncode != 0, refused.stdout
    assert '400' in refused.stderr or 'cleaning' in refused.stderr, (
        refused.stderr
    )
    cloud.open_gate('bm-00-progress')
    record = wait_states(cloud, ['bm-00'], 'manageable', timeout=60)['bm-00']
    assert steps_run(record) == [*before, 'erase_devices', 'wait_for_gate']
    assert record['clean_step'] in ({}, None)


def test_too_many_steps_to_store_are_refused(cloud: Any) -> None:
    """Item 2: a step list that cannot be stored is a 400 at the API
    (356 steps were accepted, and broke the node's writes later)."""
    status, body = cloud.api_call(
        'PUT',
        '/v1/nodes/bm-00/states/provision',
        {
            'target': 'clean',
            'clean_steps': [{'interface': 'deploy', 'step': 'erase_devices'}]
            * 356,
        },
    )
    assert status == 400, body
    assert 'as the conductor stores them' in body['error_message']
    assert node(cloud, 'bm-00')['provision_state'] == 'manageable'


def test_unknown_step_is_refused_and_changes_nothing(cloud: Any) -> None:
    refused = clean(
        cloud,
        'bm-00',
        [{'interface': 'deploy', 'step': 'no_such_step'}],
        check=False,
    )
    assert refused.returncode != 0
    assert 'no_such_step' in refused.stderr
    bad_args = clean(
        cloud, 'bm-00', [{**ERASE, 'args': {'colour': 1}}], check=False
    )
    assert bad_args.returncode != 0
    assert 'colour' in bad_args.stderr
    for args, word in (
        ({'passes': 0}, 'minimum'),
        ({'passes': '2'}, 'integer'),
    ):
        bad_value = clean(
            cloud, 'bm-00', [{**ERASE, 'args': args}], check=False
        )
        assert bad_value.returncode != 0
        assert word in bad_value.stderr, bad_value.stderr
    assert node(cloud, 'bm-00')['provision_state'] == 'manageable'


def test_failing_step_sets_clean_failed_then_recovers(cloud: Any) -> None:
    cloud.baremetal('node', 'manage', 'bm-01', '--wait', '60', parse=False)
    cloud.baremetal('node', 'power', 'on', 'bm-01', parse=False)
    clean(
        cloud,
        'bm-01',
        [
            {
                'interface': 'deploy',
                'step': 'fail_step',
                'args': {'message': 'disk 3 did not answer'},
            }
        ],
    )
    record = wait_states(cloud, ['bm-01'], 'clean failed', 60)['bm-01']
    assert record['maintenance'] is True
    assert record['fault'] == 'clean failure'
    assert 'fail_step' in record['last_error']
    assert 'disk 3 did not answer' in record['last_error']
    # The node is not powered off on a failure...
    assert record['power_state'] == 'power on'
    # ... and power changes are allowed again for the operator.
    cloud.baremetal('node', 'power', 'off', 'bm-01', parse=False)
    support.wait_for(
        lambda: node(cloud, 'bm-01')['power_state'] == 'power off',
        30,
        'bm-01 to power off',
    )
    cloud.baremetal('node', 'maintenance', 'unset', 'bm-01', parse=False)
    cloud.baremetal('node', 'manage', 'bm-01', '--wait', '60', parse=False)
    cloud.baremetal('node', 'provide', 'bm-01', '--wait', '120', parse=False)
    record = node(cloud, 'bm-01')
    assert record['provision_state'] == 'available'
    assert record['maintenance'] is False


def test_asynchronous_step_completes_by_itself(cloud: Any) -> None:
    cloud.baremetal('node', 'manage', 'bm-02', '--wait', '60', parse=False)
    clean(
        cloud,
        'bm-02',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 2},
            }
        ],
    )
    wait_states(cloud, ['bm-02'], 'clean wait', 60)
    record = wait_states(cloud, ['bm-02'], 'manageable', 60)['bm-02']
    assert steps_run(record)[-1] == 'wait_a_bit'


def test_abort_of_an_asynchronous_step(cloud: Any) -> None:
    cloud.baremetal('node', 'manage', 'bm-03', '--wait', '60', parse=False)
    clean(
        cloud,
        'bm-03',
        [
            {
                'interface': 'deploy',
                'step': 'wait_a_bit',
                'args': {'seconds': 600},
            }
        ],
    )
    wait_states(cloud, ['bm-03'], 'clean wait', 60)
    cloud.baremetal('node', 'abort', 'bm-03', parse=False)
    record = wait_states(cloud, ['bm-03'], 'clean failed', 60)['bm-03']
    assert 'abort' in (record['last_error'] or '').lower()
    cloud.baremetal('node', 'manage', 'bm-03', '--wait', '60', parse=False)


def test_deploy_and_undeploy_run_tear_down_cleaning(cloud: Any) -> None:
    before = steps_run(node(cloud, 'bm-04'))
    cloud.baremetal('node', 'deploy', 'bm-04', '--wait', '120', parse=False)
    assert node(cloud, 'bm-04')['provision_state'] == 'active'
    cloud.baremetal('node', 'undeploy', 'bm-04', '--wait', '120', parse=False)
    record = node(cloud, 'bm-04')
    assert record['provision_state'] == 'available'
    assert steps_run(record) == [
        *before,
        'erase_devices_metadata',
        'verify_properties',
    ]


def _cleaning_on(
    cloud: Any, conductor: str, names: list[str]
) -> list[str] | None:
    nodes = all_nodes(cloud)
    busy = [
        n
        for n in names
        if nodes[n]['provision_state'] == 'cleaning'
        and nodes[n]['reservation'] == conductor
    ]
    return busy or None


def test_kill_a_conductor_while_its_nodes_clean(cloud: Any) -> None:
    names = NODES[5:]
    cloud.baremetal('node', 'manage', *names, '--wait', '120', parse=False)
    cloud.baremetal('node', 'provide', *names, parse=False)
    victims = support.wait_for(
        lambda: _cleaning_on(cloud, 'conductor-1', names),
        60,
        'conductor-1 to clean a node',
        interval=0.2,
    )
    killed_at = time.monotonic()
    cloud.kill('conductor-1')
    cloud.killed.add('conductor-1')
    nodes = wait_states(cloud, names, 'available', timeout=240, unlocked=True)
    took = time.monotonic() - killed_at
    for name in victims:
        record = nodes[name]
        # The interrupted step ran again on the conductor that took the
        # node over, and cleaning went on from there.
        assert steps_run(record)[-2:] == [
            'erase_devices_metadata',
            'verify_properties',
        ], record
        assert record['reservation'] is None
        assert record['maintenance'] is False, record
    print(
        f'{len(victims)} node(s) of the killed conductor available '
        f'{took:.1f} s after the kill'
    )
    assert support.wait_for(
        lambda: cloud.conductor_hosts() == {'conductor-2'},
        60,
        'the dead conductor to leave the driver list',
    )


def test_killed_conductor_comes_back(cloud: Any) -> None:
    cloud.start_conductor('conductor-1')
    cloud.killed.discard('conductor-1')
    cloud.wait_conductors(['conductor-1', 'conductor-2'])
    cloud.baremetal('node', 'manage', 'bm-05', '--wait', '60', parse=False)
    cloud.baremetal('node', 'provide', 'bm-05', '--wait', '120', parse=False)
    assert node(cloud, 'bm-05')['provision_state'] == 'available'
