"""ironic-lite-api's /metrics: admin only by default, the listed series
after a node is enrolled and cleaned (in-process stack: real conductor,
fake hardware, SQLite)."""

import base64
import time

import pytest
import webob

from ironic_lite.tests.functional import fixtures

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
        headers['Authorization'] = 'Basic ' + base64.b64encode(
            secret).decode()
    return headers


@pytest.fixture(scope='module')
def app():
    stack = fixtures.Stack(auth='http_basic',
                           htpasswd=fixtures.write_htpasswd()).start()
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
        if shown['provision_state'] == state and not shown[
                'target_provision_state']:
            return
        time.sleep(0.1)
    raise AssertionError(f'node {node} not {state} after 30 s')


def test_metrics_need_an_admin(app):
    assert _call(app, 'GET', '/metrics', user=None).status_int == 401
    assert _call(app, 'GET', '/metrics', user='demo').status_int == 403


def test_metrics_carry_the_series_after_a_cleaning(app):
    node = _call(app, 'POST', '/v1/nodes', body={
        'driver': 'fake-hardware', 'name': 'n1'})
    assert node.status_int == 201, node.text
    state = '/v1/nodes/n1/states/provision'
    assert _call(app, 'PUT', state, body={'target': 'manage'}
                 ).status_int == 202
    _wait_for(app, 'n1', 'manageable')
    resp = _call(app, 'PUT', state, body={
        'target': 'clean', 'clean_steps': [
            {'interface': 'management', 'step': 'verify_properties'}]})
    assert resp.status_int == 202, resp.text
    _wait_for(app, 'n1', 'manageable')
    resp = _call(app, 'GET', '/metrics')
    assert resp.status_int == 200
    for series in SERIES:
        assert series in resp.text, series
    assert 'route="/v1/nodes/n1' not in resp.text
