"""How one service reaches another's REST API: the options of a client
group (``[ironic]`` of nova_lite, ``[glance]`` of ironic_lite) and the
keystoneauth session they describe.

The names are upstream's (``auth_type``, ``auth_url``, ``username``,
``endpoint_override``, ``valid_interfaces``, ``cafile`` ...), so that an
operator's configuration carries over. Three ways to authenticate:

- ``password``: a Keystone token for a service user; the endpoint from
  the catalog (by service type, region and interface) unless
  ``endpoint_override`` names it;
- ``http_basic``: the API's htpasswd user (``endpoint_override``
  required);
- ``none``: an API run with noauth (``endpoint_override`` required).
"""

import threading
from typing import Any

from keystoneauth1 import http_basic
from keystoneauth1 import noauth
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3 as ks_v3
from oslo_config import cfg

from lite_common import exception


def options(api: str, default_auth: str = 'http_basic') -> list[cfg.Opt]:
    """The options of a client group for the API named ``api`` (for the
    help texts, e.g. "the Bare Metal API")."""
    return [
        cfg.URIOpt(
            'endpoint_override',
            schemes=['http', 'https'],
            help=f'URL of {api}. Required with http_basic and none; '
            "with password, the URL in Keystone's catalog is used when "
            'unset.',
        ),
        cfg.StrOpt(
            'auth_type',
            default=default_auth,
            choices=[
                (
                    'http_basic',
                    "username and password (the API's htpasswd file)",
                ),
                ('none', 'no authentication (an API run with noauth)'),
                (
                    'password',
                    'a Keystone token for a service user (an API run '
                    'with keystone), as upstream',
                ),
            ],
            help=f'How to authenticate to {api}.',
        ),
        cfg.StrOpt('username', help='User for http_basic and password.'),
        cfg.StrOpt(
            'password',
            secret=True,
            help='Password for http_basic and password.',
        ),
        cfg.URIOpt(
            'auth_url',
            schemes=['http', 'https'],
            help="Keystone's URL (password), e.g. http://127.0.0.1:5000/v3.",
        ),
        cfg.StrOpt(
            'project_name',
            default='service',
            help='Project of the service user (password).',
        ),
        cfg.StrOpt(
            'user_domain_name',
            default='Default',
            help='Domain of the service user (password).',
        ),
        cfg.StrOpt(
            'project_domain_name',
            default='Default',
            help='Domain of the project (password).',
        ),
        cfg.StrOpt(
            'region_name',
            help=f'Region of the endpoint of {api} in the catalog '
            '(password, without endpoint_override).',
        ),
        cfg.ListOpt(
            'valid_interfaces',
            default=['internal', 'public'],
            help=f'Interfaces of the endpoint of {api} in the catalog, in '
            'order of preference (password, without endpoint_override).',
        ),
        cfg.StrOpt(
            'cafile',
            help=f"PEM file of the CA certificates that verify {api}'s and "
            "Keystone's HTTPS certificates (default: the system's).",
        ),
        cfg.StrOpt(
            'certfile',
            help='PEM client certificate, for an API that asks for one.',
        ),
        cfg.StrOpt(
            'keyfile', help='PEM key of certfile (when not in certfile).'
        ),
        cfg.BoolOpt(
            'insecure',
            default=False,
            help='Do not verify HTTPS certificates (tests only: anyone on '
            'the path can read the credentials).',
        ),
        cfg.IntOpt(
            'timeout',
            min=1,
            help=f'Seconds an HTTP request to {api} or Keystone may take '
            '(default: no limit).',
        ),
    ]


#: The exception a service raises for a bad configuration.
ErrorClass = type[exception.LiteException]


def _auth(opts: Any, group: str, error: ErrorClass) -> Any:
    if opts.auth_type == 'password':
        if not opts.auth_url:
            raise error(
                reason=f'[{group}]auth_url is required with auth_type password'
            )
        return ks_v3.Password(
            auth_url=opts.auth_url,
            username=opts.username,
            password=opts.password,
            project_name=opts.project_name,
            user_domain_name=opts.user_domain_name,
            project_domain_name=opts.project_domain_name,
        )
    if not opts.endpoint_override:
        raise error(
            reason=f'[{group}]endpoint_override is required with auth_type '
            f'{opts.auth_type}: set it to the URL of the API'
        )
    if opts.auth_type == 'none':
        return noauth.NoAuth(endpoint=opts.endpoint_override)
    return http_basic.HTTPBasicAuth(
        endpoint=opts.endpoint_override,
        username=opts.username,
        password=opts.password,
    )


def session(
    opts: Any, group: str, error: ErrorClass = exception.ConfigError
) -> ks_session.Session:
    """A keystoneauth session as the group ``opts`` (named ``group``, for
    the messages) says: its authentication, TLS options and timeout.

    :raises error: a required option is missing (the service's
        ``ConfigError``).
    """
    if opts.keyfile and not opts.certfile:
        raise error(reason=f'[{group}]keyfile needs [{group}]certfile')
    verify: bool | str = False if opts.insecure else opts.cafile or True
    cert: Any = None
    if opts.certfile:
        cert = (opts.certfile, opts.keyfile) if opts.keyfile else opts.certfile
    return ks_session.Session(
        auth=_auth(opts, group, error),
        verify=verify,
        cert=cert,
        timeout=opts.timeout,
    )


def endpoint(
    sess: ks_session.Session,
    opts: Any,
    service_type: str,
    error: ErrorClass = exception.ConfigError,
) -> str:
    """The API's URL: ``endpoint_override``, else the catalog's.

    :raises ConfigError: the catalog has no such endpoint.
    """
    if opts.endpoint_override:
        return str(opts.endpoint_override).rstrip('/')
    url = sess.get_endpoint(
        service_type=service_type,
        interface=list(opts.valid_interfaces),
        region_name=opts.region_name,
    )
    if not url:
        raise error(
            reason=f"Keystone's catalog has no {service_type} endpoint "
            f'(interfaces {", ".join(opts.valid_interfaces)}'
            + (f', region {opts.region_name}' if opts.region_name else '')
            + ')'
        )
    return str(url).rstrip('/')


class Connection:
    """The session and endpoint of a client group, made at first use
    (not when a service starts: the other API may come up later) and
    kept: keystoneauth renews the token. Thread-safe."""

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        group: str,
        service_type: str,
        error: ErrorClass = exception.ConfigError,
    ) -> None:
        self.conf = conf
        self.group = group
        self.service_type = service_type
        self.error = error
        self._made: tuple[ks_session.Session, str] | None = None
        self._lock = threading.Lock()

    def get(self) -> tuple[ks_session.Session, str]:
        """(session, endpoint URL).

        :raises error: a bad configuration or no endpoint in the catalog.
        """
        with self._lock:
            if self._made is None:
                opts = self.conf[self.group]
                sess = session(opts, self.group, self.error)
                url = endpoint(sess, opts, self.service_type, self.error)
                self._made = (sess, url)
            return self._made
