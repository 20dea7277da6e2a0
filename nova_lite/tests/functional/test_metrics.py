"""nova-lite-api's /metrics: admin only by default, the listed series
after some requests (in-process stack: real conductor, two compute
agents, SQLite)."""

import base64
import time

import pytest
import webob

from nova_lite.tests import stack as stack_mod
from nova_lite.tests.functional import api_data
from nova_lite.tests.functional import fixtures

SERIES = (
    'stacklite_api_requests_total{api="compute",method="GET",'
    'route="/v2.1/servers/{server_id}",status="404"}',
    'stacklite_api_request_duration_seconds_bucket{api="compute",'
    'le="0.005",method="GET",route="/v2.1/flavors",status="200"}',
    'stacklite_rpc_client_call_duration_seconds_count',
    'nova_lite_instances{vm_state="active"} 1.0',
    '# TYPE nova_lite_migrations gauge',
    'nova_lite_service_heartbeat_age_seconds{binary="nova-compute",'
    'host="compute-1"}',
    'nova_lite_scheduler_decisions_total{operation="claim",'
    'outcome="host_found"}',
    'nova_lite_scheduler_no_valid_host_total',
    'stacklite_rpc_client_call_duration_seconds_count{method=',
    'stacklite_db_pool_checked_out_connections{database="nova_lite"}',
    'stacklite_db_pool_size_connections{database="nova_lite"}',
)


def _auth(user):
    secret = f'{user}:{fixtures.USERS[user]}'.encode()
    return {'Authorization': 'Basic ' + base64.b64encode(secret).decode()}


@pytest.fixture(scope='module')
def app():
    stack = stack_mod.Stack(
        auth='http_basic', htpasswd=fixtures.write_htpasswd()
    )
    stack.start()
    try:
        yield stack.app
    finally:
        stack.stop()


def _get(app, path, user=None):
    headers = _auth(user) if user else {}
    return webob.Request.blank(path, headers=headers).get_response(app)


def test_metrics_need_an_admin(app):
    assert _get(app, '/metrics').status_int == 401
    resp = _get(app, '/metrics', 'demo')
    assert resp.status_int == 403
    assert resp.json['forbidden']['code'] == 403


IMAGE = '0b3c2f7e-7c45-4d2f-9a5e-2b1c3d4e5f60'


def _post(app, path, user, body):
    req = webob.Request.blank(
        path, method='POST', headers=_auth(user), json_body=body
    )
    req.content_type = 'application/json'
    resp = req.get_response(app)
    assert resp.status_int < 300, resp.text
    return resp


def _boot(app):
    _post(
        app,
        '/v2.1/flavors',
        'admin',
        {
            'flavor': {
                'name': 'tiny',
                'id': 'tiny',
                'ram': 64,
                'vcpus': 1,
                'disk': 0,
            }
        },
    )
    _post(
        app,
        '/image/v2/images',
        'admin',
        {
            'name': 'img',
            'id': IMAGE,
            'visibility': 'public',
            'disk_format': 'raw',
            'container_format': 'bare',
        },
    )
    api_data.upload(app, IMAGE, _auth('admin'))
    body = {
        'server': {
            'name': 'vm',
            'flavorRef': 'tiny',
            'networks': 'none',
            'imageRef': IMAGE,
        }
    }
    resp = _post(app, '/v2.1/servers', 'demo', body)
    server = '/v2.1/servers/' + resp.json['server']['id']
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        shown = _get(app, server, 'demo').json['server']
        if shown['status'] != 'BUILD':
            return shown['status']
        time.sleep(0.1)
    raise AssertionError('the server is still building after 30 s')


def test_metrics_carry_the_series_after_requests(app):
    assert _boot(app) == 'ACTIVE'
    assert _get(app, '/v2.1/flavors', 'admin').status_int == 200
    missing = '/v2.1/servers/00000000-0000-0000-0000-000000000000'
    assert _get(app, missing, 'admin').status_int == 404
    resp = _get(app, '/metrics', 'admin')
    assert resp.status_int == 200
    assert resp.content_type == 'text/plain'
    for series in SERIES:
        assert series in resp.text, series
    assert '/v2.1/servers/00000000' not in resp.text
