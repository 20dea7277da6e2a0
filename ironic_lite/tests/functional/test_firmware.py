"""GET /v1/nodes/{node}/firmware (1.86; identity fields 1.114) serves
what a firmware interface recorded, through the whole API stack
(in-process, SQLite); the components go with their node."""

import json

import sqlalchemy as sa
import webob

from ironic_lite.db import firmware as db_firmware
from ironic_lite.db import nodes
from ironic_lite.db.api import context_manager
from ironic_lite.db.models import FirmwareComponent
from ironic_lite.tests.functional import fixtures
from lite_common import context as lite_context

BIOS = {
    'component': 'bios',
    'current_version': 'U30 v2.36',
    'vendor': 'HPE',
    'model': 'ProLiant',
    'serial_number': 'CZ123',
}
BMC = {'component': 'bmc', 'current_version': 'iLO 5 v2.78'}


def _get(app, path, version='1.86', **headers):
    req = webob.Request.blank(
        path,
        headers={
            'X-OpenStack-Ironic-API-Version': version,
            'Accept': 'application/json',
            **headers,
        },
    )
    response = req.get_response(app)
    body = json.loads(response.body) if response.body else None
    return response.status_int, body


def test_components_are_served_as_upstream_at_each_version():
    stack = fixtures.Stack().start()
    try:
        ctx = lite_context.get_admin_context()
        node = nodes.node_create(
            ctx, {'driver': 'fake-hardware', 'name': 'fw-1', 'owner': 'p1'}
        )
        assert _get(stack.app, '/v1/nodes/fw-1/firmware') == (
            200,
            {'firmware': []},
        )
        db_firmware.record_components(ctx, node['id'], [BIOS, BMC])
        # An update: the initial version stays, the current one moves.
        db_firmware.record_components(
            ctx,
            node['id'],
            [
                {
                    **BIOS,
                    'current_version': 'U30 v2.40',
                    'last_version_flashed': 'U30 v2.40',
                },
                BMC,
            ],
        )

        status, body = _get(stack.app, '/v1/nodes/fw-1/firmware')
        assert status == 200
        bios, bmc = body['firmware']
        assert {
            k: v
            for k, v in bios.items()
            if k not in ('created_at', 'updated_at')
        } == {
            'component': 'bios',
            'initial_version': 'U30 v2.36',
            'current_version': 'U30 v2.40',
            'last_version_flashed': 'U30 v2.40',
        }
        assert bios['updated_at'] is not None and bmc['updated_at'] is None
        assert bmc['initial_version'] == bmc['current_version']

        # 1.114: the identity fields by default and in ?fields=.
        status, body = _get(stack.app, '/v1/nodes/fw-1/firmware', '1.114')
        assert body['firmware'][0]['serial_number'] == 'CZ123'
        assert body['firmware'][1]['vendor'] is None
        status, body = _get(
            stack.app,
            '/v1/nodes/fw-1/firmware?fields=component,model',
            '1.114',
        )
        assert sorted(body['firmware'][0]) == [
            'component',
            'created_at',
            'model',
            'updated_at',
        ]
        status, body = _get(
            stack.app, '/v1/nodes/fw-1/firmware?fields=component,model'
        )
        assert status == 400
        assert 'require at least API version 1.114' in (body['error_message'])
        # ?detail=true: every field of the version (upstream refuses
        # any detail: a known difference of the differential run).
        status, body = _get(stack.app, '/v1/nodes/fw-1/firmware?detail=true')
        assert sorted(body['firmware'][0]) == sorted(
            [
                'created_at',
                'updated_at',
                'component',
                'initial_version',
                'current_version',
                'last_version_flashed',
            ]
        )
        assert (
            _get(
                stack.app,
                '/v1/nodes/fw-1/firmware?detail=true&fields=component',
            )[0]
            == 400
        )
        assert _get(stack.app, '/v1/nodes/fw-1/firmware?fields=nope')[0] == (
            400
        )
        assert _get(stack.app, '/v1/nodes/fw-1/firmware?bogus=1')[0] == 400
        assert _get(stack.app, '/v1/nodes/fw-1/firmware', '1.85')[0] == 404

        # The owner's reader sees them; another project does not see
        # the node at all.
        assert (
            _get(
                stack.app,
                '/v1/nodes/fw-1/firmware',
                **{'X-Project-Id': 'p1', 'X-Roles': 'reader'},
            )[0]
            == 200
        )
        assert (
            _get(
                stack.app,
                '/v1/nodes/fw-1/firmware',
                **{'X-Project-Id': 'p2', 'X-Roles': 'reader'},
            )[0]
            == 404
        )

        # A component no longer read is forgotten; all go with the node.
        db_firmware.record_components(ctx, node['id'], [BMC])
        assert [
            c['component']
            for c in _get(stack.app, '/v1/nodes/fw-1/firmware')[1]['firmware']
        ] == ['bmc']
        nodes.node_destroy(ctx, node['id'])
        with context_manager.reader.using(ctx) as session:
            assert (
                session.scalar(
                    sa.select(sa.func.count()).select_from(FirmwareComponent)
                )
                == 0
            )
    finally:
        stack.stop()
