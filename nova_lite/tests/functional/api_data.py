"""Records for the tests that check answers against the OpenAPI
documents (the fuzz run and test_response_schemas): a flavor with an
extra spec, a public image, an aggregate with a host and metadata; the
user's key pair, server group and an ACTIVE server in it, with tags and
metadata. Without them a list answers ``[]``, which any schema
accepts."""

import dataclasses
import time
from typing import Any

import webob

LATEST = {'OpenStack-API-Version': 'compute latest'}
IMAGE = '6c1f2a9e-1d3b-4c5e-8f70-9a1b2c3d4e5f'
FLAVOR = 'described'
KEY = (
    'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDx8nkQv/zgGgB4rMYmIf+6A4l6Rr+'
    'o/6lHBQdW5aYd44bd8JttDCE/F/pNRr0lRE+PiqSPO8nDPHw0010JeMH9gYgnnFlyY3'
    '/OcJ02RhIPyyxYpv9FhY+2YiUkpwFOcLImyrxEsYXpD/0d3ac30bNH6Sw9JD9UZHYcp'
    'SxsIbECHw== described'
)


@dataclasses.dataclass
class Records:
    server: str = ''
    group: str = ''
    aggregate: int = 0


def call(
    app: Any, method: str, path: str, headers: dict[str, str], body: Any = None
) -> webob.Response:
    req = webob.Request.blank(path, method=method, headers=headers)
    if body is not None:
        req.json_body = body
        req.content_type = 'application/json'
    return req.get_response(app)


def _made(
    app: Any, method: str, path: str, headers: dict[str, str], body: Any
) -> Any:
    resp = call(app, method, path, {**LATEST, **headers}, body)
    assert resp.status_int < 300, f'{method} {path}: {resp.text}'
    return resp.json if resp.body else None


def upload(app: Any, image: str, headers: dict[str, str]) -> None:
    """A few bytes as the data of ``image``, which becomes active (the
    only status a server boots from)."""
    req = webob.Request.blank(
        f'/image/v2/images/{image}/file',
        method='PUT',
        headers=headers,
        body=b'a few bytes',
        content_type='application/octet-stream',
    )
    resp = req.get_response(app)
    assert resp.status_int == 204, resp.text


def _admin_records(
    app: Any, admin: dict[str, str], records: Records, host: str
) -> None:
    _made(
        app,
        'POST',
        '/v2.1/flavors',
        admin,
        {
            'flavor': {
                'name': FLAVOR,
                'id': FLAVOR,
                'ram': 64,
                'vcpus': 1,
                'disk': 1,
                'description': 'described by the OpenAPI document',
            }
        },
    )
    _made(
        app,
        'POST',
        f'/v2.1/flavors/{FLAVOR}/os-extra_specs',
        admin,
        {'extra_specs': {'hw:cpu_policy': 'shared'}},
    )
    _made(
        app,
        'POST',
        '/image/v2/images',
        admin,
        {
            'name': 'described',
            'id': IMAGE,
            'visibility': 'public',
            'disk_format': 'raw',
            'container_format': 'bare',
            'hw_machine_type': 'q35',
        },
    )
    upload(app, IMAGE, admin)
    made = _made(
        app,
        'POST',
        '/v2.1/os-aggregates',
        admin,
        {'aggregate': {'name': 'described'}},
    )
    records.aggregate = made['aggregate']['id']
    action = f'/v2.1/os-aggregates/{records.aggregate}/action'
    _made(app, 'POST', action, admin, {'add_host': {'host': host}})
    _made(
        app,
        'POST',
        action,
        admin,
        {'set_metadata': {'metadata': {'purpose': 'described'}}},
    )


def _user_records(app: Any, user: dict[str, str], records: Records) -> None:
    _made(
        app,
        'POST',
        '/v2.1/os-keypairs',
        user,
        {'keypair': {'name': 'described', 'public_key': KEY}},
    )
    made = _made(
        app,
        'POST',
        '/v2.1/os-server-groups',
        user,
        {
            'server_group': {
                'name': 'described',
                'policy': 'anti-affinity',
                'rules': {'max_server_per_host': 2},
            }
        },
    )
    records.group = made['server_group']['id']
    made = _made(
        app,
        'POST',
        '/v2.1/servers',
        user,
        {
            'server': {
                'name': 'described',
                'flavorRef': FLAVOR,
                'imageRef': IMAGE,
                'networks': 'none',
                'key_name': 'described',
                'metadata': {'role': 'test'},
                'tags': ['described'],
                'description': 'a server',
            },
            'os:scheduler_hints': {'group': records.group},
        },
    )
    records.server = made['server']['id']


def _wait_active(app: Any, user: dict[str, str], server: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        shown = _made(app, 'GET', f'/v2.1/servers/{server}', user, None)
        if shown['server']['status'] != 'BUILD':
            assert shown['server']['status'] == 'ACTIVE', shown
            return
        time.sleep(0.1)
    raise AssertionError(f'server {server} still building after 30 s')


def make(
    app: Any,
    admin: dict[str, str],
    user: dict[str, str],
    host: str = 'compute-1',
) -> Records:
    """Create the records (``admin``/``user``: the callers' headers)."""
    records = Records()
    _admin_records(app, admin, records, host)
    _user_records(app, user, records)
    _wait_active(app, user, records.server)
    return records
