"""Fuzz the Bare Metal API from its OpenAPI document (schemathesis, fixed
seed, bounded): no 5xx, errors in the Bare Metal format, no traceback or
SQL in any body, every answer as the document describes it. As an admin
(noauth) and as a member (http_basic), on a stack that holds one of each
resource (:func:`make_resources`), whose identifiers the requests use
besides random ones.

A longer run: ``python -m ironic_lite.tests.functional.test_fuzz
--examples 500 --seed 7``.
"""

import os
import sys
from typing import Any

import pytest
import webob

from lite_common import backend

# Before anything imports oslo.service (run as a script, too).
backend.select_threading()

from ironic_lite.api import openapi  # noqa: E402
from ironic_lite.tests.functional import fixtures  # noqa: E402
from lite_common.tests import fuzz  # noqa: E402

SEED = int(os.environ.get('STACKLITE_FUZZ_SEED', '1401'))
LATEST = {'X-OpenStack-Ironic-API-Version': 'latest'}
# demo:demo-secret, a member (nodes are for admins: mostly 403s).
MEMBER = {**LATEST, 'Authorization': 'Basic ZGVtbzpkZW1vLXNlY3JldA=='}
# admin:admin-secret, who makes the resources in the http_basic run.
ADMIN = {**LATEST, 'Authorization': 'Basic YWRtaW46YWRtaW4tc2VjcmV0'}
_UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c781'


def _post(
    app: Any,
    path: str,
    body: dict[str, Any] | None,
    headers: dict[str, str],
    method: str = 'POST',
    status: int = 201,
) -> Any:
    req = webob.Request.blank(path, method=method, headers=headers)
    if body is not None:
        req.json = body
        req.content_type = 'application/json'
    resp = req.get_response(app)
    assert resp.status_int == status, (path, resp.text)
    return resp.json if resp.body else None


def make_resources(app: Any, headers: dict[str, str]) -> dict[str, list[str]]:
    """One node, chassis, port, portgroup, allocation, deploy template,
    runbook, inspection rule, volume connector and target; path
    parameter -> values."""
    chassis = _post(app, '/v1/chassis', {'description': 'fuzz'}, headers)
    node = _post(
        app,
        '/v1/nodes',
        {
            'driver': 'fake-hardware',
            'name': 'fuzz-node',
            'uuid': _UUID,
            'chassis_uuid': chassis['uuid'],
        },
        headers,
    )
    _post(
        app, f'/v1/nodes/{_UUID}/traits/CUSTOM_FUZZ', None, headers, 'PUT', 204
    )
    group = _post(
        app,
        '/v1/portgroups',
        {
            'node_uuid': node['uuid'],
            'address': '52:54:00:00:00:01',
            'name': 'fuzz-group',
        },
        headers,
    )
    port = _post(
        app,
        '/v1/ports',
        {
            'node_uuid': node['uuid'],
            'address': '52:54:00:00:00:02',
            'portgroup_uuid': group['uuid'],
        },
        headers,
    )
    template = _post(
        app,
        '/v1/deploy_templates',
        {
            'name': 'CUSTOM_FUZZ',
            'steps': [
                {
                    'interface': 'deploy',
                    'step': 'erase_devices',
                    'args': {},
                    'priority': 10,
                }
            ],
        },
        headers,
    )
    runbook = _post(
        app,
        '/v1/runbooks',
        {
            'name': 'CUSTOM_FUZZ_RUNBOOK',
            'steps': [
                {
                    'interface': 'deploy',
                    'step': 'erase_devices',
                    'args': {},
                    'order': 0,
                }
            ],
        },
        headers,
    )
    rule = _post(
        app,
        '/v1/inspection_rules',
        {
            'description': 'fuzz',
            'actions': [{'op': 'log', 'args': {'msg': 'fuzz'}}],
        },
        headers,
    )
    allocation = _post(
        app,
        '/v1/allocations',
        {'resource_class': 'fuzz', 'name': 'fuzz-allocation'},
        headers,
    )
    connector = _post(
        app,
        '/v1/volume/connectors',
        {
            'node_uuid': node['uuid'],
            'type': 'iqn',
            'connector_id': 'iqn.2024-01.org.example:fuzz',
        },
        headers,
    )
    target = _post(
        app,
        '/v1/volume/targets',
        {
            'node_uuid': node['uuid'],
            'volume_type': 'iscsi',
            'boot_index': 0,
            'volume_id': 'fuzz-volume',
        },
        headers,
    )
    return {
        'node_ident': [node['uuid'], node['name']],
        'chassis_uuid': [chassis['uuid']],
        'port_ident': [port['uuid']],
        'portgroup_ident': [group['uuid'], group['name']],
        'template_ident': [template['uuid'], template['name']],
        'runbook_ident': [runbook['uuid'], runbook['name']],
        'allocation_ident': [allocation['uuid'], allocation['name']],
        'item_uuid': [connector['uuid'], target['uuid']],
        'rule_id': [rule['uuid']],
        'driver_name': ['fake-hardware'],
        'hostname': ['conductor-1'],
        'trait': ['CUSTOM_FUZZ'],
    }


def run(
    auth: str, headers: dict[str, str], examples: int, seed: int
) -> fuzz.Report:
    htpasswd = fixtures.write_htpasswd() if auth == 'http_basic' else None
    stack = fixtures.Stack(auth=auth, htpasswd=htpasswd).start()
    try:
        known = make_resources(
            stack.app, ADMIN if auth == 'http_basic' else LATEST
        )
        return fuzz.fuzz(
            stack.app,
            headers,
            openapi.error_format_ok,
            examples,
            seed,
            known=known,
        )
    finally:
        stack.stop()


USERS = [('noauth', LATEST), ('http_basic', MEMBER)]


@pytest.mark.parametrize('auth,headers', USERS)
def test_fuzz(auth, headers):
    examples = fuzz.EXAMPLES if auth == 'noauth' else fuzz.MEMBER_EXAMPLES
    fuzz.assert_clean(run(auth, headers, examples, SEED))


if __name__ == '__main__':
    sys.exit(fuzz.main(__doc__.split('\n')[0], run, USERS, SEED))
