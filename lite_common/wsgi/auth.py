"""Authentication middleware: ``noauth``, ``http_basic``, ``keystone``.

Each puts a :class:`lite_common.context.RequestContext` in
``environ['lite.context']``. ``noauth`` must be chosen explicitly: it
makes every caller an admin.

``http_basic`` reads an Apache htpasswd file with bcrypt hashes (as
``htpasswd -B`` writes them). A user's project is its user name; users
listed in ``http_basic_admin_users`` get the ``admin`` role, everyone
else ``member`` and ``reader``. Where the API's administrators are
system-scoped (the Bare Metal API), the admin users hold their roles on
the system scope instead of their project.

``keystone`` puts keystonemiddleware in front; the answers it writes
itself (a 401 without a valid token, a 503 when Keystone cannot be
reached) are rewritten in the API's error format, as every other error:
clients parse error bodies with it.
"""

import base64
import binascii
from collections.abc import Callable
import hashlib
import hmac
import secrets
import threading
from typing import Any

import bcrypt
from oslo_config import cfg
from oslo_log import log as logging
import webob
import webob.exc

from lite_common import context as lite_context
from lite_common.wsgi import basic_guard
from lite_common.wsgi import faults
from lite_common.wsgi.text import printable

LOG = logging.getLogger(__name__)
ENV_KEY = 'lite.context'

auth_opts = [
    cfg.StrOpt(
        'auth_strategy',
        default='keystone',
        choices=[
            (
                'keystone',
                'Validate tokens with keystonemiddleware; see '
                'the [keystone_authtoken] section.',
            ),
            (
                'http_basic',
                'HTTP basic authentication against the '
                'htpasswd file http_basic_auth_user_file.',
            ),
            (
                'noauth',
                'No authentication: every request is an admin. '
                'For tests and isolated all-in-one setups only.',
            ),
        ],
        help='How API requests are authenticated.',
    ),
    cfg.StrOpt(
        'http_basic_auth_user_file',
        default='/etc/stacklite/htpasswd',
        help='Apache htpasswd file with bcrypt hashes, used when '
        'auth_strategy is http_basic.',
    ),
    cfg.ListOpt(
        'http_basic_admin_users',
        default=['admin'],
        help='http_basic users who get the admin role.',
    ),
    cfg.ListOpt(
        'http_basic_trusted_proxies',
        default=[],
        help='Addresses or networks (10.0.0.0/8) of the reverse proxies '
        'in front of this API. Failed http_basic logins are throttled per '
        'client address; a request from one of these counts against the '
        'address its X-Forwarded-For header names, rather than the '
        "proxy's own (which every client behind it shares).",
    ),
]

IsAdmin = Callable[[lite_context.RequestContext], bool]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(auth_opts)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, auth_opts)]


class ContextMiddleware:
    """Builds the request context from headers set by auth."""

    def __init__(self, app: Any, is_admin: IsAdmin) -> None:
        self.app = app
        self.is_admin = is_admin

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get('HTTP_X_IDENTITY_STATUS', 'Confirmed') != 'Confirmed':
            raise webob.exc.HTTPUnauthorized(
                explanation='Authentication required.'
            )
        ctx = lite_context.RequestContext.from_environ(environ)
        ctx.request_id = environ.get('openstack.request_id', ctx.request_id)
        ctx.is_admin = self.is_admin(ctx)
        environ[ENV_KEY] = ctx
        return self.app(environ, start_response)


#: Headers only an auth layer may set; a client's are removed.
_IDENTITY_PREFIXES = (
    'HTTP_X_USER',
    'HTTP_X_PROJECT',
    'HTTP_X_ROLE',
    'HTTP_X_TENANT',
    'HTTP_X_IDENTITY',
    'HTTP_X_SERVICE',
    'HTTP_X_DOMAIN',
    'HTTP_X_IS_ADMIN_PROJECT',
    'HTTP_OPENSTACK_SYSTEM_SCOPE',
)


def _strip_identity_headers(environ: dict[str, Any]) -> None:
    for key in list(environ):
        if key.startswith(_IDENTITY_PREFIXES):
            del environ[key]


class NoAuth:
    """Every request is the admin of project ``admin`` (or X-Project-Id).

    With ``system_scope`` (the Bare Metal API, whose administrators hold
    their roles on the system), a request without X-Project-Id is on the
    system scope instead of project ``admin``'s.
    """

    def __init__(self, app: Any, system_scope: bool = False) -> None:
        self.app = app
        self.system_scope = system_scope

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        project = environ.get('HTTP_X_PROJECT_ID')
        user = environ.get('HTTP_X_USER_ID', 'admin')
        roles = environ.get('HTTP_X_ROLES', 'admin,member,reader')
        _strip_identity_headers(environ)
        environ.update(
            {
                'HTTP_X_IDENTITY_STATUS': 'Confirmed',
                'HTTP_X_USER_ID': user,
                'HTTP_X_USER_NAME': user,
                'HTTP_X_ROLES': roles,
            }
        )
        if project is None and self.system_scope:
            environ['HTTP_OPENSTACK_SYSTEM_SCOPE'] = 'all'
        else:
            environ['HTTP_X_PROJECT_ID'] = project or 'admin'
        return self.app(environ, start_response)


#: bcrypt's limit on the password (bytes).
BCRYPT_MAX_BYTES = 72
#: bcrypt checks running at once in a process: guessing clients cannot
#: take more CPU than this, whatever their number.
_BCRYPT_SLOTS = threading.BoundedSemaphore(2)


def _cost(hashed: bytes) -> int:
    """The cost of a bcrypt hash (``$2b$12$...``)."""
    try:
        return int(hashed.split(b'$')[2])
    except (IndexError, ValueError):
        return 12


def load_htpasswd(path: str) -> dict[str, bytes]:
    """user -> bcrypt hash; a clear error for anything else in the file."""
    users: dict[str, bytes] = {}
    try:
        with open(path, encoding='utf-8') as htpasswd:
            lines = htpasswd.read().splitlines()
    except OSError as exc:
        raise RuntimeError(
            f'Cannot read the http_basic user file {path}: {exc.strerror}. '
            'Set [DEFAULT]http_basic_auth_user_file to an htpasswd file '
            'made with "htpasswd -B".'
        ) from exc
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        user, sep, hashed = line.partition(':')
        if not sep or not hashed.startswith(('$2y$', '$2b$', '$2a$')):
            raise RuntimeError(
                f'{path} line {number}: expected "user:bcrypt-hash" '
                '(htpasswd -B); only bcrypt hashes are accepted.'
            )
        users[user] = hashed.replace('$2y$', '$2b$', 1).encode()
    return users


class BasicAuth:
    """HTTP basic authentication against an htpasswd file.

    bcrypt is slow on purpose (about 0.25 s at the default cost), and
    clients send the password with every request. Once bcrypt accepts
    a user's password, the process remembers an HMAC of it under a key
    made at start-up, so that the same password is accepted again by a
    cheap comparison. A wrong password always goes through bcrypt.
    """

    def __init__(
        self,
        app: Any,
        user_file: str,
        admin_users: list[str],
        system_scope: bool = False,
        trusted_proxies: list[str] | None = None,
    ) -> None:
        self.app = app
        #: Whether the admin users hold their role on the system scope
        #: (the Bare Metal API) rather than on their project.
        self.system_scope = system_scope
        self.users = load_htpasswd(user_file)
        self.admin_users = set(admin_users)
        self._key = secrets.token_bytes(32)
        self._verified: dict[str, bytes] = {}
        self.guard = basic_guard.Guard()
        try:
            self.proxies = basic_guard.parse_networks(trusted_proxies or [])
        except ValueError as exc:
            raise RuntimeError(
                f'{exc} Fix [DEFAULT]http_basic_trusted_proxies.'
            ) from exc
        # Unknown users and impossible passwords go through bcrypt too,
        # at the highest cost in the file: they take as long to refuse.
        self._dummy = bcrypt.hashpw(
            secrets.token_bytes(16),
            bcrypt.gensalt(
                rounds=max((_cost(h) for h in self.users.values()), default=12)
            ),
        )

    def _digest(self, hashed: bytes, password: bytes) -> bytes:
        return hmac.new(
            self._key, hashed + b'\0' + password, hashlib.sha256
        ).digest()

    def _known(self, user: str, password: bytes) -> bool:
        """The password this process verified last for ``user`` (no
        bcrypt)."""
        hashed = self.users.get(user)
        known = self._verified.get(user)
        return (
            hashed is not None
            and known is not None
            and hmac.compare_digest(known, self._digest(hashed, password))
        )

    def _password_ok(self, user: str, password: bytes) -> bool:
        """bcrypt's answer, with the same work whether ``user`` exists
        or not. bcrypt reads 72 bytes at most (as ``htpasswd -B``): a
        longer password never matches, rather than matching any password
        with the same first 72 bytes."""
        hashed = self.users.get(user)
        usable = hashed is not None and len(password) <= BCRYPT_MAX_BYTES
        with _BCRYPT_SLOTS:
            matches = bcrypt.checkpw(
                password[:BCRYPT_MAX_BYTES],
                hashed if usable and hashed is not None else self._dummy,
            )
        if not (usable and matches):
            return False
        assert hashed is not None
        self._verified[user] = self._digest(hashed, password)
        return True

    def _challenge(self, message: str) -> webob.exc.HTTPUnauthorized:
        return webob.exc.HTTPUnauthorized(
            explanation=message,
            headers=[('WWW-Authenticate', 'Basic realm="stacklite"')],
        )

    def _credentials(self, environ: dict[str, Any]) -> tuple[str, str]:
        header = environ.get('HTTP_AUTHORIZATION', '')
        scheme, _, value = header.partition(' ')
        if scheme.lower() != 'basic' or not value:
            raise self._challenge(
                'Authentication required: use HTTP basic credentials.'
            )
        try:
            decoded = base64.b64decode(value.strip(), validate=True)
            user, sep, password = decoded.decode('utf-8').partition(':')
        except (binascii.Error, UnicodeDecodeError):
            raise self._challenge('Malformed basic credentials.')
        if not sep:
            raise self._challenge('Malformed basic credentials.')
        return user, password

    def _source(self, environ: dict[str, Any]) -> str:
        return basic_guard.client_address(
            str(environ.get('REMOTE_ADDR') or '-'),
            environ.get('HTTP_X_FORWARDED_FOR'),
            self.proxies,
        )

    def _authenticate(self, environ: dict[str, Any]) -> str:
        user, text = self._credentials(environ)
        password = text.encode()
        if self._known(user, password):
            return user
        source = self._source(environ)
        try:
            ticket = self.guard.admit(source, user)
        except basic_guard.Throttled as exc:
            LOG.warning(
                'Too many failed logins from %s (for user %s): '
                'refused for %d s',
                printable(source),
                printable(user),
                exc.retry_after,
            )
            raise webob.exc.HTTPTooManyRequests(
                explanation='Too many failed authentication attempts; '
                f'retry in {exc.retry_after} seconds.',
                headers=[('Retry-After', str(exc.retry_after))],
            )
        if not self._password_ok(user, password):
            LOG.info(
                'Basic authentication failed for user %s from %s',
                printable(user),
                printable(source),
            )
            raise self._challenge('Invalid username or password.')
        self.guard.succeeded(ticket)
        return user

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        user = self._authenticate(environ)
        roles = ['member', 'reader']
        if user in self.admin_users:
            roles.insert(0, 'admin')
        _strip_identity_headers(environ)
        environ.update(
            {
                'HTTP_X_IDENTITY_STATUS': 'Confirmed',
                'HTTP_X_USER_ID': user,
                'HTTP_X_USER_NAME': user,
                'HTTP_X_ROLES': ','.join(roles),
            }
        )
        if self.system_scope and user in self.admin_users:
            environ['HTTP_OPENSTACK_SYSTEM_SCOPE'] = 'all'
        else:
            environ['HTTP_X_PROJECT_ID'] = user
            environ['HTTP_X_PROJECT_NAME'] = user
        return self.app(environ, start_response)


class AnonymousContext:
    """A context with no identity, whatever the request carries: for
    paths anyone may call (a ramdisk agent has no credentials)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        _strip_identity_headers(environ)
        environ.pop('HTTP_X_AUTH_TOKEN', None)
        environ['HTTP_X_IDENTITY_STATUS'] = 'Confirmed'
        return self.app(environ, start_response)


def wrap(
    app: Any,
    conf: cfg.ConfigOpts,
    is_admin: IsAdmin,
    public_path: Callable[[str], bool],
    anonymous_path: Callable[[str], bool] | None = None,
    system_scope: bool = False,
    formatter: faults.ErrorFormatter = faults.plain_error,
) -> Any:
    """Wrap ``app`` with the configured authentication and context.

    Paths for which ``public_path`` is true (version documents) need no
    credentials. Those for which ``anonymous_path`` is true need none
    either: they get a context without identity (policy decides what
    such a caller may do). With ``system_scope``, noauth requests without
    a project and http_basic's admin users are on the system scope.
    ``formatter`` renders keystonemiddleware's refusals.
    """
    inner = ContextMiddleware(app, is_admin)
    anonymous = AnonymousContext(inner)
    strategy = conf.auth_strategy
    if strategy == 'noauth':
        authed: Any = NoAuth(inner, system_scope)
    elif strategy == 'http_basic':
        authed = BasicAuth(
            inner,
            conf.http_basic_auth_user_file,
            conf.http_basic_admin_users,
            system_scope,
            conf.http_basic_trusted_proxies,
        )
    else:
        # Errors of the layers behind keystonemiddleware are rendered
        # before it sees them: its wsgify would answer an exception in
        # webob's format.
        authed = KeystoneRefusals(
            _keystone(Passed(faults.FaultWrapper(inner, formatter)), conf),
            formatter,
        )

    def dispatch(environ: dict[str, Any], start_response: Any) -> Any:
        # Only the auth layer says what the caller's scope is: in
        # keystone mode keystonemiddleware sets OpenStack-System-Scope
        # from a validated token but does not remove one a client sent
        # (noauth and http_basic strip it with the identity headers).
        environ.pop('HTTP_OPENSTACK_SYSTEM_SCOPE', None)
        path = environ.get('PATH_INFO', '/')
        if public_path(path):
            return app(environ, start_response)
        if anonymous_path is not None and anonymous_path(path):
            return anonymous(environ, start_response)
        return authed(environ, start_response)

    return dispatch


#: What keystonemiddleware needs to validate tokens: where Keystone is
#: and the service user it validates them as.
_KEYSTONE_REQUIRED = ('auth_type', 'auth_url')


def _keystone(app: Any, conf: cfg.ConfigOpts) -> Any:
    """keystonemiddleware around ``app``; a clear error at start-up
    (rather than a 500 per request) when its options are missing."""
    from keystonemiddleware import auth_token

    authed = auth_token.AuthProtocol(app, {'oslo_config_config': conf})
    group = getattr(conf, 'keystone_authtoken', None)
    missing = [
        name
        for name in _KEYSTONE_REQUIRED
        if group is None or not getattr(group, name, None)
    ]
    if missing:
        raise RuntimeError(
            'auth_strategy is keystone but [keystone_authtoken] does not '
            'set ' + ', '.join(missing) + ' (and the credentials of the '
            'service user: username, password, project_name, '
            'user_domain_name, project_domain_name). Configure '
            '[keystone_authtoken], or choose another auth_strategy.'
        )
    return authed


#: Set in the environ once the application behind keystonemiddleware
#: has answered.
_PASSED = 'lite.auth_passed'

#: What a client reads when keystonemiddleware refuses a request.
_KEYSTONE_MESSAGES = {
    401: 'The request you have made requires authentication.',
    503: 'The identity service (Keystone) cannot validate the token at '
    'the moment; retry later.',
}


class Passed:
    """Marks a request the application behind keystonemiddleware
    answered."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        result = self.app(environ, start_response)
        environ[_PASSED] = True
        return result


class KeystoneRefusals:
    """keystonemiddleware's own error answers in the API's format (its
    401 is Keystone's JSON, its 503 webob's HTML), with their
    ``WWW-Authenticate`` (where to get a token); a 503 says when to come
    back. What the application answered passes unchanged."""

    def __init__(self, authed: Any, formatter: faults.ErrorFormatter) -> None:
        self.authed = authed
        self.formatter = formatter

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        req = webob.Request(environ)
        response = req.get_response(self.authed)
        if environ.pop(_PASSED, False) or response.status_int < 400:
            return response(environ, start_response)
        status = response.status_int
        message = _KEYSTONE_MESSAGES.get(status) or str(
            webob.exc.status_map[status].title
            if status in webob.exc.status_map
            else response.status
        )
        headers = [
            (k, v)
            for k, v in response.headerlist
            if k.lower() in ('www-authenticate', 'retry-after')
        ]
        if status == 503 and not any(
            k.lower() == 'retry-after' for k, _ in headers
        ):
            headers.append(('Retry-After', str(faults.RETRY_AFTER)))
        return faults.json_error(
            status, message, req, self.formatter, headers
        )(environ, start_response)


def get_context(req: webob.Request) -> lite_context.RequestContext:
    context: lite_context.RequestContext = req.environ[ENV_KEY]
    return context
