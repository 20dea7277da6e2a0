"""HTTP basic authentication against an htpasswd file (bcrypt only)."""

import base64
import json

import bcrypt
from oslo_config import cfg
import pytest
import webob
import webob.exc

from lite_common.wsgi import auth
from lite_common.wsgi import faults

# Low cost: these tests check behaviour, not hashing strength.
ROUNDS = 4


def _hash(password, prefix=None):
    hashed = bcrypt.hashpw(
        password.encode(), bcrypt.gensalt(rounds=ROUNDS)
    ).decode()
    if prefix:
        # htpasswd -B writes $2y$, the same algorithm as $2b$.
        hashed = prefix + hashed[4:]
    return hashed


@pytest.fixture
def htpasswd(tmp_path):
    path = tmp_path / 'htpasswd'
    path.write_text(
        '\n'.join(
            [
                '# users of the test cloud',
                '',
                f'admin:{_hash("secret")}',
                f'alice:{_hash("wonderland", prefix="$2y$")}',
                f'  bob:{_hash("builder", prefix="$2a$")}  ',
            ]
        )
        + '\n'
    )
    return path


def test_load_htpasswd_parses_bcrypt_lines(htpasswd):
    users = auth.load_htpasswd(str(htpasswd))
    assert sorted(users) == ['admin', 'alice', 'bob']
    assert bcrypt.checkpw(b'secret', users['admin'])
    assert bcrypt.checkpw(b'wonderland', users['alice'])
    assert bcrypt.checkpw(b'builder', users['bob'])
    assert not bcrypt.checkpw(b'secret', users['alice'])
    # $2y$ is normalised to $2b$, which the bcrypt package accepts.
    assert users['alice'].startswith(b'$2b$')


# Explicit ids: gabbi's pytest plugin takes any test id with a ':' for
# one of its own.
@pytest.mark.parametrize(
    'bad',
    [
        'carol:$apr1$abcdefgh$0123456789abcdefghijkl',  # htpasswd -m (MD5)
        'carol:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=',  # htpasswd -s
        'carol:plaintext',
        'carol',
    ],
    ids=['md5', 'sha', 'plain', 'no-hash'],
)
def test_load_htpasswd_rejects_non_bcrypt_line(tmp_path, bad):
    path = tmp_path / 'htpasswd'
    path.write_text(f'# comment\nadmin:{_hash("secret")}\n{bad}\n')
    with pytest.raises(RuntimeError) as err:
        auth.load_htpasswd(str(path))
    message = str(err.value)
    assert f'{path} line 3' in message
    assert 'bcrypt' in message
    # The message must not leak the line's hash.
    secret = bad.partition(':')[2]
    if secret:
        assert secret not in message


def test_load_htpasswd_missing_file(tmp_path):
    path = tmp_path / 'nope'
    with pytest.raises(RuntimeError, match='http_basic_auth_user_file'):
        auth.load_htpasswd(str(path))


class Inner:
    """The protected application: records what reaches it."""

    def __init__(self):
        self.environ = None

    def __call__(self, environ, start_response):
        self.environ = dict(environ)
        return webob.Response(body=b'inner')(environ, start_response)


@pytest.fixture
def inner():
    return Inner()


@pytest.fixture
def app(inner, htpasswd):
    return auth.BasicAuth(inner, str(htpasswd), admin_users=['admin'])


def _basic(user, password):
    token = base64.b64encode(f'{user}:{password}'.encode()).decode()
    return f'Basic {token}'


def _request(authorization=None, **headers):
    if authorization is not None:
        headers['Authorization'] = authorization
    return webob.Request.blank('/v2.1/servers', headers=headers)


def _assert_challenge(err):
    assert err.value.code == 401
    assert err.value.headers['WWW-Authenticate'].startswith('Basic realm=')


def test_no_credentials_is_401_with_challenge(app, inner):
    with pytest.raises(webob.exc.HTTPUnauthorized) as err:
        _request().get_response(app)
    _assert_challenge(err)
    assert inner.environ is None


@pytest.mark.parametrize(
    'authorization',
    [
        _basic('admin', 'wrong'),
        _basic('admin', ''),
        _basic('nobody', 'secret'),
        _basic('alice', 'secret'),  # another user's password
        'Basic !!!not-base64!!!',
        'Basic ' + base64.b64encode(b'no-colon').decode(),
        'Bearer sometoken',
        'Basic',
    ],
)
def test_bad_credentials_are_401(app, inner, authorization):
    with pytest.raises(webob.exc.HTTPUnauthorized) as err:
        _request(authorization).get_response(app)
    _assert_challenge(err)
    assert inner.environ is None


def test_admin_user_gets_admin_role(app, inner):
    resp = _request(_basic('admin', 'secret')).get_response(app)
    assert resp.body == b'inner'
    env = inner.environ
    assert env['HTTP_X_ROLES'].split(',') == ['admin', 'member', 'reader']
    assert env['HTTP_X_USER_ID'] == 'admin'
    assert env['HTTP_X_PROJECT_ID'] == 'admin'
    assert env['HTTP_X_IDENTITY_STATUS'] == 'Confirmed'


@pytest.mark.parametrize(
    'user,password', [('alice', 'wonderland'), ('bob', 'builder')]
)
def test_other_users_get_member_and_reader(app, inner, user, password):
    _request(_basic(user, password)).get_response(app)
    env = inner.environ
    assert env['HTTP_X_ROLES'].split(',') == ['member', 'reader']
    assert 'admin' not in env['HTTP_X_ROLES']
    assert env['HTTP_X_USER_ID'] == user
    assert env['HTTP_X_PROJECT_ID'] == user


def test_password_with_colon(tmp_path, inner):
    path = tmp_path / 'htpasswd'
    path.write_text(f'carol:{_hash("a:b:c")}\n')
    app = auth.BasicAuth(inner, str(path), admin_users=[])
    _request(_basic('carol', 'a:b:c')).get_response(app)
    assert inner.environ['HTTP_X_USER_ID'] == 'carol'


def test_spoofed_identity_headers_are_stripped(app, inner):
    _request(
        _basic('alice', 'wonderland'),
        **{
            'X-Roles': 'admin',
            'X-Role': 'admin',
            'X-Project-Id': 'admin',
            'X-Tenant-Id': 'admin',
            'X-User-Id': 'admin',
            'X-Service-Roles': 'service,admin',
            'X-Domain-Id': 'default',
            'X-Project-Domain-Id': 'default',
            'X-Identity-Status': 'Confirmed',
            'X-Other': 'kept',
        },
    ).get_response(app)
    env = inner.environ
    assert env['HTTP_X_ROLES'] == 'member,reader'
    assert env['HTTP_X_PROJECT_ID'] == 'alice'
    assert env['HTTP_X_USER_ID'] == 'alice'
    for key in (
        'HTTP_X_ROLE',
        'HTTP_X_TENANT_ID',
        'HTTP_X_SERVICE_ROLES',
        'HTTP_X_DOMAIN_ID',
        'HTTP_X_PROJECT_DOMAIN_ID',
    ):
        assert key not in env, key
    # Unrelated headers pass through.
    assert env['HTTP_X_OTHER'] == 'kept'


def test_spoofed_headers_without_credentials_are_refused(app, inner):
    with pytest.raises(webob.exc.HTTPUnauthorized):
        _request(
            **{
                'X-Roles': 'admin',
                'X-Identity-Status': 'Confirmed',
                'X-Project-Id': 'admin',
            }
        ).get_response(app)
    assert inner.environ is None


def _json_formatter(status, message, req):
    return 'application/json', json.dumps(
        {'error': {'code': status, 'message': message}}
    ).encode()


def test_fault_wrapper_keeps_the_challenge_header(app):
    resp = _request().get_response(faults.FaultWrapper(app, _json_formatter))
    assert resp.status_int == 401
    assert resp.headers['WWW-Authenticate'].startswith('Basic realm=')
    assert resp.json['error']['code'] == 401


@pytest.fixture
def conf(htpasswd):
    conf = cfg.ConfigOpts()
    auth.register_opts(conf)
    conf([], default_config_files=[])
    conf.set_override('auth_strategy', 'http_basic')
    conf.set_override('http_basic_auth_user_file', str(htpasswd))
    return conf


def test_wrap_builds_the_context(conf, inner):
    def is_admin(ctx):
        return 'admin' in ctx.roles

    app = auth.wrap(
        inner, conf, is_admin, public_path=lambda path: path == '/'
    )

    # A public path needs no credentials and gets no context.
    assert webob.Request.blank('/').get_response(app).body == b'inner'
    assert auth.ENV_KEY not in inner.environ

    _request(_basic('admin', 'secret'), **{'X-Roles': 'x'}).get_response(app)
    ctx = inner.environ[auth.ENV_KEY]
    assert ctx.user_id == 'admin'
    assert ctx.project_id == 'admin'
    assert sorted(ctx.roles) == ['admin', 'member', 'reader']
    assert ctx.is_admin is True

    _request(
        _basic('alice', 'wonderland'), **{'X-Roles': 'admin'}
    ).get_response(app)
    ctx = inner.environ[auth.ENV_KEY]
    assert ctx.project_id == 'alice'
    assert sorted(ctx.roles) == ['member', 'reader']
    assert ctx.is_admin is False

    with pytest.raises(webob.exc.HTTPUnauthorized):
        _request().get_response(app)


def test_system_scoped_admins(conf, inner):
    """Where administrators are system-scoped (the Bare Metal API):
    http_basic's admin users and noauth requests without a project are
    on the system scope; others keep their project, and a client cannot
    claim the system scope."""
    app = auth.wrap(
        inner,
        conf,
        lambda ctx: False,
        public_path=lambda path: False,
        system_scope=True,
    )
    _request(
        _basic('admin', 'secret'), **{'OpenStack-System-Scope': 'x'}
    ).get_response(app)
    ctx = inner.environ[auth.ENV_KEY]
    assert (ctx.system_scope, ctx.project_id) == ('all', None)
    _request(
        _basic('alice', 'wonderland'), **{'OpenStack-System-Scope': 'all'}
    ).get_response(app)
    ctx = inner.environ[auth.ENV_KEY]
    assert (ctx.system_scope, ctx.project_id) == (None, 'alice')

    conf.set_override('auth_strategy', 'noauth')
    app = auth.wrap(
        inner,
        conf,
        lambda ctx: False,
        public_path=lambda path: False,
        system_scope=True,
    )
    _request().get_response(app)
    ctx = inner.environ[auth.ENV_KEY]
    assert (ctx.system_scope, ctx.project_id) == ('all', None)
    _request(**{'X-Project-Id': 'p1', 'X-Roles': 'reader'}).get_response(app)
    ctx = inner.environ[auth.ENV_KEY]
    assert (ctx.system_scope, ctx.project_id, ctx.roles) == (
        None,
        'p1',
        ['reader'],
    )
    _request(
        **{'OpenStack-System-Scope': 'all', 'X-Project-Id': 'p1'}
    ).get_response(app)
    assert inner.environ[auth.ENV_KEY].system_scope is None

    # Without system_scope (the Compute API) noauth is project admin's.
    app = auth.wrap(
        inner, conf, lambda ctx: False, public_path=lambda path: False
    )
    _request().get_response(app)
    ctx = inner.environ[auth.ENV_KEY]
    assert (ctx.system_scope, ctx.project_id) == (None, 'admin')


def test_a_known_password_skips_bcrypt_a_wrong_one_never_does(
    app, inner, monkeypatch
):
    """After one bcrypt check the right password is recognised without
    bcrypt; a wrong password after it is still checked (and refused)."""
    calls = []
    real_checkpw = auth.bcrypt.checkpw

    def counting_checkpw(password, hashed):
        calls.append(password)
        return real_checkpw(password, hashed)

    monkeypatch.setattr(auth.bcrypt, 'checkpw', counting_checkpw)
    for _ in range(3):
        resp = _request(_basic('admin', 'secret')).get_response(app)
        assert resp.body == b'inner'
    assert calls == [b'secret']
    for _ in range(2):
        with pytest.raises(webob.exc.HTTPUnauthorized):
            _request(_basic('admin', 'not-it')).get_response(app)
    assert calls == [b'secret', b'not-it', b'not-it']
    # The right password still works after wrong ones, without bcrypt.
    assert _request(_basic('admin', 'secret')).get_response(app).body == (
        b'inner'
    )
    assert len(calls) == 3
    # Another user's password does not open this user's account.
    with pytest.raises(webob.exc.HTTPUnauthorized):
        _request(_basic('alice', 'secret')).get_response(app)


@pytest.mark.parametrize('strategy', ['noauth', 'http_basic'])
def test_system_scope_header_does_not_reach_the_context(conf, inner, strategy):
    conf.set_override('auth_strategy', strategy)
    app = auth.wrap(inner, conf, lambda ctx: False, lambda path: False)
    _request(
        _basic('alice', 'wonderland'),
        **{'OpenStack-System-Scope': 'all', 'X-Is-Admin-Project': 'True'},
    ).get_response(app)
    ctx = inner.environ[auth.ENV_KEY]
    assert ctx.system_scope is None
    assert 'HTTP_OPENSTACK_SYSTEM_SCOPE' not in inner.environ
    assert 'HTTP_X_IS_ADMIN_PROJECT' not in inner.environ


def test_keystone_without_authtoken_options_refuses_to_start(conf, inner):
    conf.set_override('auth_strategy', 'keystone')
    with pytest.raises(RuntimeError) as err:
        auth.wrap(inner, conf, lambda ctx: False, lambda path: False)
    message = str(err.value)
    assert '[keystone_authtoken]' in message
    assert 'auth_type' in message
    assert 'auth_url' in message


def test_keystone_with_authtoken_options_starts(tmp_path, inner):
    path = tmp_path / 'api.conf'
    path.write_text(
        '[DEFAULT]\nauth_strategy = keystone\n'
        '[keystone_authtoken]\nauth_type = password\n'
        'auth_url = http://192.0.2.1/identity\n'
    )
    conf = cfg.ConfigOpts()
    auth.register_opts(conf)
    conf([], default_config_files=[str(path)])
    assert callable(
        auth.wrap(inner, conf, lambda ctx: False, lambda path: False)
    )
