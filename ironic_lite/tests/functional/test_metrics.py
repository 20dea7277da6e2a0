"""ironic-lite-api's /metrics: admin only by default, the listed series
after a node is enrolled and cleaned (in-process stack: real conductor,
fake hardware, SQLite)."""

import base64
import json
from pathlib import Path
import re
import time

import pytest
import webob

from ironic_lite.tests.functional import fixtures

DASHBOARD = (
    Path(__file__).resolve().parents[3]
    / 'etc'
    / 'grafana'
    / ('stacklite.json')
)
VERSION = {'X-OpenStack-Ironic-API-Version': '1.20'}
SERIES = (
    'stacklite_api_requests_total{api="baremetal",method="PUT",'
    'route="/v1/nodes/{node_ident}/states/provision",status="202"}',
    'stacklite_api_request_duration_seconds_count{api="baremetal",'
    'method="POST",route="/v1/nodes",status="201"}',
    'stacklite_rpc_client_call_duration_seconds_count{method=',
    'ironic_lite_nodes{fault="none",maintenance="false",'
    'provision_state="manageable"} 1.0',
    'ironic_lite_conductor_heartbeat_age_seconds{hostname="conductor-1",'
    'online="true"}',
    'ironic_lite_clean_step_duration_seconds_count{outcome="succeeded",'
    'step="management.verify_properties"}',
    '# TYPE ironic_lite_clean_failures_total counter',
    'stacklite_db_pool_checked_out_connections{database="ironic_lite"}',
)


def _headers(user):
    headers = dict(VERSION)
    if user:
        secret = f'{user}:{fixtures.USERS[user]}'.encode()
        headers['Authorization'] = 'Basic ' + base64.b64encode(secret).decode()
    return headers


@pytest.fixture(scope='module')
def app():
    stack = fixtures.Stack(
        auth='http_basic', htpasswd=fixtures.write_htpasswd()
    ).start()
    try:
        yield stack.app
    finally:
        stack.stop()


def _call(app, method, path, user='admin', body=None):
    req = webob.Request.blank(path, method=method, headers=_headers(user))
    if body is not None:
        req.json_body = body
        req.content_type = 'application/json'
    return req.get_response(app)


def _wait_for(app, node, state):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        shown = _call(app, 'GET', f'/v1/nodes/{node}').json
        if (
            shown['provision_state'] == state
            and not shown['target_provision_state']
        ):
            return
        time.sleep(0.1)
    raise AssertionError(f'node {node} not {state} after 30 s')


def test_metrics_need_an_admin(app):
    assert _call(app, 'GET', '/metrics', user=None).status_int == 401
    assert _call(app, 'GET', '/metrics', user='demo').status_int == 403


def test_metrics_carry_the_series_after_a_cleaning(app):
    node = _call(
        app,
        'POST',
        '/v1/nodes',
        body={'driver': 'fake-hardware', 'name': 'n1'},
    )
    assert node.status_int == 201, node.text
    state = '/v1/nodes/n1/states/provision'
    assert (
        _call(app, 'PUT', state, body={'target': 'manage'}).status_int == 202
    )
    _wait_for(app, 'n1', 'manageable')
    resp = _call(
        app,
        'PUT',
        state,
        body={
            'target': 'clean',
            'clean_steps': [
                {'interface': 'management', 'step': 'verify_properties'}
            ],
        },
    )
    assert resp.status_int == 202, resp.text
    _wait_for(app, 'n1', 'manageable')
    resp = _call(app, 'GET', '/metrics')
    assert resp.status_int == 200
    for series in SERIES:
        assert series in resp.text, series
    assert 'route="/v1/nodes/n1' not in resp.text


def _panel_expr(title):
    panels = json.loads(DASHBOARD.read_text())['panels']
    [panel] = [p for p in panels if p['title'] == title]
    [target] = panel['targets']
    return target['expr']


def _samples(text, name):
    """``{labels: value}`` of the samples of ``name`` in a scrape."""
    return {
        labels: float(value)
        for labels, value in re.findall(
            rf'^{name}\{{(.*)\}} (\S+)$', text, re.M
        )
    }


def _increase_by(before, after, label):
    """What ``sum by (label) (increase(...))`` gives over a window
    holding the two scrapes (a series new in ``after`` has no earlier
    sample: Prometheus cannot count it, and neither does this)."""
    totals = {}
    for labels, value in after.items():
        key = re.search(rf'{label}="([^"]*)"', labels).group(1)
        if labels in before:
            totals[key] = totals.get(key, 0.0) + value - before[labels]
    return totals


def test_clean_failures_panel_shows_a_failure_after_it(app):
    expr = _panel_expr('Clean failures (1h)')
    match = re.fullmatch(
        r'sum by \((\w+)\) \(increase\((\w+)\{job=~"\$job"\}\[1h\]\)\)', expr
    )
    assert match, expr
    label, name = match.groups()
    assert (
        _call(
            app,
            'POST',
            '/v1/nodes',
            body={'driver': 'fake-hardware', 'name': 'failing'},
        ).status_int
        == 201
    )
    state = '/v1/nodes/failing/states/provision'
    assert (
        _call(app, 'PUT', state, body={'target': 'manage'}).status_int == 202
    )
    _wait_for(app, 'failing', 'manageable')
    before = _samples(_call(app, 'GET', '/metrics').text, name)
    assert before.get('event="fail"') is not None, before
    assert before.get('event="abort"') is not None, before
    resp = _call(
        app,
        'PUT',
        state,
        body={
            'target': 'clean',
            'clean_steps': [{'interface': 'deploy', 'step': 'fail_step'}],
        },
    )
    assert resp.status_int == 202, resp.text
    _wait_for(app, 'failing', 'clean failed')
    after = _samples(_call(app, 'GET', '/metrics').text, name)
    assert _increase_by(before, after, label) == {'fail': 1.0, 'abort': 0.0}
