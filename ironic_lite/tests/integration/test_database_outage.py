"""A database outage longer than ``[database]flow_retry_timeout`` fails
the cleaning it interrupted, with a ``last_error`` that says
"database"; a shorter one does not (see test_database_faults.py): the
flow waits and goes on (issue 29).

One conductor on MariaDB through a proxy (lite_common/tests/db_proxy.py)
with a bound of 3 s; the database goes away (connections cut and
refused) for 10 s while a clean step runs.
"""

import time
from typing import Any

import devstack_support as support
import pytest

from lite_common.tests import db_proxy
from lite_common.tests import integration

BOUND = 3
OUTAGE = 10
OPTIONS = {
    # No takeover while the database is away: one conductor, and a long
    # heartbeat timeout.
    'conductor': {
        'heartbeat_interval': 1,
        'heartbeat_timeout': 60,
        'clean_step_poll_interval': 1,
    },
    'database': {'flow_retry_timeout': BOUND, 'request_retry_timeout': 2},
}


proxy = db_proxy.module_fixture()


@pytest.fixture(scope='module')
def cloud(
    request: pytest.FixtureRequest,
    tmp_path_factory: Any,
    proxy: db_proxy.DatabaseProxy,
) -> Any:
    import devstack_ironic

    dep = devstack_ironic.start(
        tmp_path_factory.mktemp('db-outage'),
        db='mysql',
        conductors=1,
        step_delay=0.2,
        options=OPTIONS,
        db_port=proxy.port,
    )
    integration.register_cloud(request, dep)
    try:
        yield dep
    finally:
        dep.stop()


def _node(cloud: Any, node: str) -> dict[str, Any]:
    status, body = cloud.api_call('GET', f'/v1/nodes/{node}')
    assert status == 200, body
    return body


def test_an_outage_past_the_bound_fails_the_cleaning_saying_database(
    cloud: Any, proxy: db_proxy.DatabaseProxy
) -> None:
    status, node = cloud.api_call(
        'POST', '/v1/nodes', {'driver': 'fake-hardware', 'name': 'outage'}
    )
    assert status == 201, node
    uuid = node['uuid']
    cloud.api_call(
        'PUT', f'/v1/nodes/{uuid}/states/provision', {'target': 'manage'}
    )
    support.wait_for(
        lambda: _node(cloud, uuid)['provision_state'] == 'manageable',
        60,
        'the node manageable',
    )
    status, body = cloud.api_call(
        'PUT',
        f'/v1/nodes/{uuid}/states/provision',
        {
            'target': 'clean',
            'clean_steps': [
                {
                    'interface': 'deploy',
                    'step': 'wait_for_gate',
                    'args': {'gate': 'outage'},
                }
            ],
        },
    )
    assert status == 202, body
    support.wait_for(
        lambda: (
            (_node(cloud, uuid)['clean_step'] or {}).get('step')
            == 'wait_for_gate'
        ),
        60,
        'the step running',
    )
    proxy.refuse()
    proxy.cut()
    try:
        # The step ends while the database is away: recording that
        # fails for longer than the bound.
        cloud.open_gate('outage')
        time.sleep(OUTAGE)
    finally:
        proxy.accept()
    row = support.wait_for(
        lambda: (
            lambda n: (
                n
                if n['provision_state'] in ('clean failed', 'manageable')
                and not n['reservation']
                else None
            )
        )(_node(cloud, uuid)),
        120,
        'the cleaning to end',
    )
    assert row['provision_state'] == 'clean failed', row
    assert 'database is unavailable' in row['last_error'], row
