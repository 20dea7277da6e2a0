"""One rule puts a node whose cleaning failed in maintenance, upstream
Ironic's (``cleaning_error_handler``): only when a clean step was
running, never for an abort; ``clean wait`` timeouts included (issue 29:
an agent timeout before the first step left maintenance off, a mid-clean
or fake-driver timeout set it on, and the documentation said nothing of
the difference). Called directly on a locked node (real SQLite)."""

from typing import Any

import pytest

from ironic_lite.common import states
from ironic_lite.conductor import clean_state
from ironic_lite.conductor import clean_wait
from ironic_lite.conductor import cleaning
from ironic_lite.conductor import task_manager
from ironic_lite.db import nodes as db_nodes
from ironic_lite.drivers import agent
from ironic_lite.tests.unit import make_conf
from ironic_lite.tests.unit import test_task_manager as fixtures
from ironic_lite.tests.unit.test_task_manager import HOLDER
from ironic_lite.tests.unit.test_task_manager import HOST
from ironic_lite.tests.unit.test_task_manager import holder  # noqa: F401
from ironic_lite.tests.unit.test_task_manager import make_node

ASYNC = {
    'interface': 'deploy',
    'step': 'wait_a_bit',
    'args': {'seconds': 600},
    'abortable': True,
    'priority': 0,
}
FAIL = {
    'interface': 'deploy',
    'step': 'fail_step',
    'args': {'message': 'disk 3 is gone'},
    'abortable': False,
    'priority': 0,
}
AGENT_STEP = {
    'interface': 'deploy',
    'step': 'erase_devices',
    'args': {},
    'abortable': True,
    'priority': 10,
}

pool = fixtures.pool


@pytest.fixture
def conf():
    return make_conf(
        host=HOST,
        fake__step_delay=0.0,
        enabled_deploy_interfaces=['fake', 'agent'],
    )


class Node:
    def __init__(self, clean_step: dict[str, Any]) -> None:
        self.clean_step = clean_step


@pytest.mark.parametrize(
    'clean_step,event,expected',
    [
        (ASYNC, 'fail', True),
        (AGENT_STEP, 'fail', True),
        ({}, 'fail', False),
        (None, 'fail', False),
        (ASYNC, 'abort', False),
        ({}, 'abort', False),
    ],
)
def test_maintenance_when_a_step_runs_and_no_abort(
    clean_step, event, expected
):
    assert clean_state.sets_maintenance(Node(clean_step), event) is expected


def _lock(ctx: Any, conf: Any, node: dict[str, Any]) -> Any:
    return task_manager.acquire(ctx, conf, node['id'], HOLDER, 'test')


def _cleaning(ctx: Any, **values: Any) -> dict[str, Any]:
    return make_node(
        ctx,
        provision_state=states.CLEANING,
        target_provision_state=states.MANAGEABLE,
        **values,
    )


def _timed_out(ctx: Any, conf: Any, node: dict[str, Any]) -> dict[str, Any]:
    with _lock(ctx, conf, node) as task:
        clean_wait.fail_on_timeout(task)
    return dict(db_nodes.node_get(ctx, node['id']))


def _outcome(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row['provision_state'], row['maintenance'], row['fault'])


def test_a_timeout_of_a_driver_step_sets_maintenance(ctx, conf):
    node = _cleaning(ctx)
    with _lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task, [ASYNC])
    row = _timed_out(ctx, conf, node)
    assert _outcome(row) == (states.CLEANFAIL, True, clean_state.CLEAN_FAILURE)
    assert row['maintenance_reason'] == row['last_error']
    assert 'clean step deploy.wait_a_bit did not finish' in row['last_error']


def test_a_timeout_before_the_first_step_does_not(ctx, conf):
    """The agent never heartbeated: no step ran, the hardware is where
    the boot for cleaning left it."""
    node = _cleaning(ctx, deploy_interface='agent')
    with _lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task)
    row = db_nodes.node_get(ctx, node['id'])
    assert (row['provision_state'], row['clean_step']) == (
        states.CLEANWAIT,
        {},
    )
    row = _timed_out(ctx, conf, node)
    assert _outcome(row) == (states.CLEANFAIL, False, None)
    assert row['maintenance_reason'] is None
    assert 'its agent did not heartbeat' in row['last_error']


def test_a_timeout_of_an_agent_step_sets_maintenance(ctx, conf):
    """The agent stopped heartbeating while its step ran (the node as
    the agent flow leaves it in ``clean wait``)."""
    node = _cleaning(ctx, deploy_interface='agent')
    with _lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task)
    with _lock(ctx, conf, node) as task:
        task.node.clean_step = AGENT_STEP
        task.node.driver_internal_info.update(
            {
                clean_state.STEPS_KEY: [AGENT_STEP],
                clean_state.INDEX_KEY: 0,
                agent.COMMAND_KEY: 'command-1',
            }
        )
        task.save()
    row = _timed_out(ctx, conf, node)
    assert _outcome(row) == (states.CLEANFAIL, True, clean_state.CLEAN_FAILURE)
    assert 'runs on the agent, which did not heartbeat' in row['last_error']


def test_an_operators_maintenance_reason_is_kept(ctx, conf):
    node = _cleaning(ctx, maintenance=True, maintenance_reason='disk swap')
    with _lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task, [FAIL])
    row = db_nodes.node_get(ctx, node['id'])
    assert _outcome(row) == (states.CLEANFAIL, True, clean_state.CLEAN_FAILURE)
    assert row['maintenance_reason'] == 'disk swap'
    assert 'disk 3 is gone' in row['last_error']


def test_an_abort_during_a_step_does_not(ctx, conf, pool):
    node = _cleaning(ctx)
    with _lock(ctx, conf, node) as task:
        cleaning.do_node_clean(task, [ASYNC])
    with _lock(ctx, conf, node) as task:
        clean_wait.start_abort(task, pool)
    row = fixtures.wait_state(ctx, node, states.CLEANFAIL)
    assert _outcome(row) == (states.CLEANFAIL, False, None)
    assert 'aborted by request' in row['last_error']
