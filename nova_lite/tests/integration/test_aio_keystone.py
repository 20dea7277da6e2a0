"""The all-in-one's Keystone (:mod:`stacklite.identity`): upstream
Keystone started in a temporary state directory on an ephemeral port,
and a Compute API that validates its tokens with keystonemiddleware."""

import os
from pathlib import Path
import stat
import time

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
import pytest
import requests

from lite_common.wsgi import server as wsgi_server
from nova_lite.api import app as api_app
from nova_lite.tests import stack as stack_mod
from nova_lite.tests.integration import conftest
from stacklite import aio_identity
from stacklite import identity

BAREMETAL_URL = 'http://127.0.0.1:6385'


class _Cloud:
    def __init__(self, keystone: identity.Keystone, compute_url: str):
        self.keystone = keystone
        self.compute_url = compute_url

    def log_tails(self) -> str:
        log = self.keystone.log_file
        lines = log.read_text().splitlines()[-40:] if log.exists() else []
        return f'--- {log}\n' + '\n'.join(lines)


@pytest.fixture(scope='module')
def cloud(request, tmp_path_factory):
    state = tmp_path_factory.mktemp('keystone-aio')
    keystone = identity.Keystone(state, port=0)
    stack = stack_mod.Stack(auth='keystone', computes=0)
    conf = stack.prepare()
    identity.configure_authtoken(conf, keystone, 'nova')
    api = wsgi_server.APIServer(
        'nova-lite-api', api_app.load_app(conf), '127.0.0.1', 0
    )
    host, port = api.bind_addr
    compute_root = f'http://{host}:{port}'
    keystone.endpoints = identity.catalog(compute_root, BAREMETAL_URL)
    cloud = _Cloud(keystone, f'{compute_root}/v2.1')
    conftest.register_cloud(request, cloud)
    try:
        keystone.start()
        api.start()
        yield cloud
    finally:
        api.stop()
        keystone.stop()
        stack.stop()


def _session(cloud, user: str, **scope: str) -> ks_session.Session:
    auth = v3.Password(
        auth_url=cloud.keystone.auth_url,
        username=user,
        password=cloud.keystone.passwords[user],
        user_domain_name='Default',
        **scope,
    )
    return ks_session.Session(auth=auth)


def _project(name: str) -> dict[str, str]:
    return {'project_name': name, 'project_domain_name': 'Default'}


def test_admin_gets_a_project_token_with_the_catalog(cloud):
    session = _session(cloud, 'admin', **_project('admin'))
    access = session.auth.get_access(session)
    assert access.project_name == 'admin'
    assert {'admin', 'member', 'reader'} <= set(access.role_names)
    urls = {
        kind: access.service_catalog.url_for(
            service_type=kind, interface='public'
        )
        for kind in ('identity', 'compute', 'image', 'baremetal')
    }
    assert urls == {
        'identity': cloud.keystone.auth_url,
        'compute': cloud.compute_url,
        'image': cloud.compute_url.replace('/v2.1', '/image'),
        'baremetal': BAREMETAL_URL,
    }


def test_admin_gets_a_system_scoped_token(cloud):
    session = _session(cloud, 'admin', system_scope='all')
    access = session.auth.get_access(session)
    assert access.system_scoped
    assert 'admin' in access.role_names


def test_demo_is_a_member_of_project_demo(cloud):
    session = _session(cloud, 'demo', **_project('demo'))
    access = session.auth.get_access(session)
    assert access.project_name == 'demo'
    assert set(access.role_names) == {'member', 'reader'}
    with pytest.raises(ks_exceptions.Unauthorized):
        bad = _session(cloud, 'demo', **_project('admin'))
        bad.auth.get_access(bad)


def test_the_compute_api_takes_a_token_found_in_the_catalog(cloud):
    session = _session(cloud, 'demo', **_project('demo'))
    resp = session.get(
        '/flavors',
        endpoint_filter={'service_type': 'compute', 'interface': 'public'},
    )
    assert resp.status_code == 200, resp.text
    assert resp.url.startswith(cloud.compute_url)


@pytest.mark.parametrize(
    ('method', 'path', 'body', 'action'),
    [
        (
            'POST',
            '/os-keypairs',
            {'keypair': {'name': 'system-key'}},
            'os_compute_api:os-keypairs:create',
        ),
        ('GET', '/servers/detail', None, 'os_compute_api:servers:detail'),
        ('GET', '/os-quota-sets/x', None, 'os_compute_api:os-quota-sets:show'),
    ],
)
def test_a_system_scoped_token_is_refused_as_upstream(
    cloud, method, path, body, action
):
    """Every Compute API operation is project-scoped: a system-scoped
    token gets upstream's 403 (it got a 500 on keypair create: no
    project to charge)."""
    session = _session(cloud, 'admin', system_scope='all')
    resp = session.request(
        path,
        method,
        json=body,
        raise_exc=False,
        endpoint_filter={'service_type': 'compute', 'interface': 'public'},
    )
    assert resp.status_code == 403, resp.text
    assert f"Policy doesn't allow {action} to be performed." in resp.text


def test_the_compute_api_refuses_a_request_without_a_token(cloud):
    resp = requests.get(f'{cloud.compute_url}/flavors', timeout=10)
    assert resp.status_code == 401
    assert 'Keystone uri' in resp.headers.get('WWW-Authenticate', '')
    bad = requests.get(
        f'{cloud.compute_url}/flavors',
        timeout=10,
        headers={'X-Auth-Token': 'not-a-token'},
    )
    assert bad.status_code == 401


def test_the_all_in_one_clouds_work_with_openstacksdk(cloud):
    """The clouds ``stacklite-aio --identity keystone`` writes: the
    demo's finds the Compute API in the catalog with no override."""
    import openstack

    entry = aio_identity.clouds(cloud.keystone)['clouds']['stacklite-demo']
    conn = openstack.connect(
        load_yaml_config=False,
        load_envvars=False,
        auth_type=entry['auth_type'],
        **entry['auth'],
        region_name=entry['region_name'],
    )
    assert conn.current_project['name'] == 'demo'
    assert list(conn.compute.flavors()) == []


def test_keystone_state_is_private(cloud):
    directory: Path = cloud.keystone.directory
    paths = [directory, *directory.rglob('*')]
    names = {p.name for p in paths}
    assert {
        'keystone.conf',
        'keystone.sqlite',
        'passwords.yaml',
        'fernet-keys',
        'credential-keys',
        'keystone.log',
    } <= names
    assert {
        str(p): oct(stat.S_IMODE(p.stat().st_mode))
        for p in paths
        if p.stat().st_mode & 0o077
    } == {}


def test_concurrent_writes_all_succeed(cloud):
    """Keystone on SQLite: users created and logged in for the first
    time concurrently (each login writes the user's ``last_active_at``)
    all succeed. A transaction that read before it wrote failed at once
    with "database is locked" (a 500) when another held the write lock,
    until Keystone's transactions took that lock at their start."""
    import concurrent.futures
    import uuid

    admin = _session(cloud, 'admin', **_project('admin'))
    url = cloud.keystone.auth_url

    def create_and_login(index: int) -> tuple[int, int]:
        name = f'user-{index}-{uuid.uuid4().hex[:6]}'
        created = admin.post(
            f'{url}/users',
            json={
                'user': {
                    'name': name,
                    'domain_id': 'default',
                    'password': 'secret-pw',
                }
            },
            raise_exc=False,
        )
        login = requests.post(
            f'{url}/auth/tokens',
            json={
                'auth': {
                    'identity': {
                        'methods': ['password'],
                        'password': {
                            'user': {
                                'name': name,
                                'domain': {'id': 'default'},
                                'password': 'secret-pw',
                            }
                        },
                    }
                }
            },
            timeout=60,
        )
        return created.status_code, login.status_code

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(create_and_login, range(32)))
    assert codes == [(201, 201)] * 32, sorted(set(codes))


def test_a_keystone_that_dies_is_started_again(tmp_path):
    """Killed (SIGKILL), Keystone is started again on the same socket:
    a login right after the kill waits in its backlog and succeeds."""
    import signal

    keystone = identity.Keystone(tmp_path, port=0)
    keystone.start()
    try:
        first = keystone._process
        assert first is not None
        os.kill(first.pid, signal.SIGKILL)
        started = time.monotonic()
        response = requests.post(
            f'{keystone.auth_url}/auth/tokens',
            json={
                'auth': {
                    'identity': {
                        'methods': ['password'],
                        'password': {
                            'user': {
                                'name': 'demo',
                                'domain': {'id': 'default'},
                                'password': keystone.passwords['demo'],
                            }
                        },
                    }
                }
            },
            timeout=60,
        )
        assert response.status_code == 201, response.text
        assert keystone._process is not first
        assert keystone._process.poll() is None
        assert time.monotonic() - started < 30
    finally:
        keystone.stop()
    assert keystone._process.poll() is not None


def test_a_keystone_that_keeps_dying_gives_up(tmp_path, monkeypatch):
    """More than MAX_RESTARTS ends within the window: not started
    again, and ``on_give_up`` is called (the all-in-one stops)."""
    import signal
    import threading

    monkeypatch.setattr(identity, 'MAX_RESTARTS', 1)
    gave_up = threading.Event()
    keystone = identity.Keystone(tmp_path, port=0)
    keystone.on_give_up = gave_up.set
    keystone.start()
    try:
        for _ in range(2):
            process = keystone._process
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)
            deadline = time.monotonic() + 60
            while (
                keystone._process is process
                and not gave_up.is_set()
                and time.monotonic() < deadline
            ):
                time.sleep(0.1)
        assert gave_up.wait(60)
    finally:
        keystone.stop()


def test_the_identity_shim_is_not_served_with_keystone(cloud):
    """nova-lite-api answers identity discovery and project look-ups
    itself only when there is no Keystone (http_basic, noauth)."""
    root = cloud.compute_url.removesuffix('/v2.1')
    assert requests.get(root + '/identity/v3', timeout=10).status_code == 404
    admin = _session(cloud, 'admin', **_project('admin'))
    for path in ('/identity/v3/projects', '/identity/v3/projects/admin'):
        assert admin.get(root + path, raise_exc=False).status_code == 404
