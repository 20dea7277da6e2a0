"""A node's Redfish connection: its ``driver_info`` checked, and the
``ComputerSystem`` it names, through a cached sushy session.

The driver_info keys, defaults and messages are upstream Ironic's. The
password never appears in a message or a log line.

A BMC that does not answer is tried ``[redfish]connection_attempts``
times, each request repeated by sushy ``[redfish]server_side_retries``
times: minutes. A conductor that stops gives all of it up at once
(:mod:`ironic_lite.common.stopping`): every attempt runs on a thread the
caller leaves on a stop, the session sends nothing more, and the call
raises :class:`~ironic_lite.exception.BMCCallStopped`.
"""

import collections
from collections.abc import Callable
import os
import threading
from typing import Any
from typing import TypeVar
import urllib.parse

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import strutils
import requests
import sushy
from sushy import connector as sushy_connector

from ironic_lite import exception
from ironic_lite.common import stopping

LOG = logging.getLogger(__name__)
T = TypeVar('T')

REQUIRED_PROPERTIES = {
    'redfish_address': 'The URL address to the Redfish controller. It '
    'must include the authority portion of the URL. If the scheme is '
    'missing, https is assumed. For example: https://mgmt.vendor.com. '
    'Required.',
}
OPTIONAL_PROPERTIES = {
    'redfish_system_id': 'The canonical path to the ComputerSystem '
    'resource that the driver will interact with. It should include the '
    'root service, version and the unique resource path to a '
    'ComputerSystem. This property is only required if target BMC '
    'manages more than one ComputerSystem. Otherwise ironic will pick '
    'the only available ComputerSystem automatically. For example: '
    '/redfish/v1/Systems/1. Optional.',
    'redfish_username': 'User account with admin/server-profile access '
    "privilege. Although this property is not mandatory it's highly "
    'recommended to set a username. Optional.',
    'redfish_password': 'User account password. Although this property is '
    "not mandatory, it's highly recommended to set a password. Optional.",
    'redfish_verify_ca': 'Either a Boolean value, a path to a CA_BUNDLE '
    'file or directory with certificates of trusted CAs. If set to True '
    'the driver will verify the host certificates; if False the driver '
    "will ignore verifying the SSL certificate. If it's a path the driver "
    'will use the specified certificate or one of the certificates in the '
    'directory. Defaults to True. Optional.',
    'redfish_auth_type': 'Redfish HTTP client authentication method. One '
    'of "basic", "session" or "auto". Defaults to "auto". Optional.',
}
COMMON_PROPERTIES = {**REQUIRED_PROPERTIES, **OPTIONAL_PROPERTIES}
AUTH_TYPES = {
    'basic': sushy.auth.BasicAuth,
    'session': sushy.auth.SessionAuth,
    'auto': sushy.auth.SessionOrBasicAuth,
}


RedfishError = exception.RedfishError
RedfishConnectionError = exception.RedfishConnectionError


def _address(node: Any, value: Any) -> str:
    address = str(value).strip()
    if '://' not in address:
        address = 'https://' + address
    parsed = urllib.parse.urlparse(address)
    if parsed.scheme not in ('http', 'https') or not parsed.netloc:
        raise exception.InvalidParameterValue(
            err=f'Invalid Redfish address {value} set in '
            f'driver_info/redfish_address on node {node.uuid}'
        )
    return address.rstrip('/')


def _verify(node: Any, value: Any) -> bool | str:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return strutils.bool_from_string(value, strict=True)
        except ValueError:
            if os.path.isfile(value) or os.path.isdir(value):
                return value  # a CA bundle file or directory
    raise exception.InvalidParameterValue(
        err=f'Invalid value type set in driver_info/redfish_verify_ca on '
        f'node {node.uuid}. The value should be a Boolean or the path to '
        f'a file/directory, not "{value}"'
    )


def parse_driver_info(node: Any) -> dict[str, Any]:
    """The node's Redfish settings, checked.

    :raises MissingParameterValue: no redfish_address.
    :raises InvalidParameterValue: a value that cannot be used.
    """
    info = node.driver_info or {}
    missing = [key for key in REQUIRED_PROPERTIES if not info.get(key)]
    if missing:
        raise exception.MissingParameterValue(
            err=f'Missing the following Redfish properties in node '
            f'{node.uuid} driver_info: {", ".join(missing)}'
        )
    system_id = info.get('redfish_system_id')
    if system_id is not None and not isinstance(system_id, str):
        raise exception.InvalidParameterValue(
            err=f'Invalid value "{system_id}" set in '
            f'driver_info/redfish_system_id on node {node.uuid}. The value '
            f'should be a path (or identifier) to the System resource.'
        )
    auth_type = info.get('redfish_auth_type', 'auto')
    if auth_type not in AUTH_TYPES:
        raise exception.InvalidParameterValue(
            err=f'Invalid value "{auth_type}" set in '
            f'driver_info/redfish_auth_type on node {node.uuid}. The value '
            f'should be one of "{", ".join(sorted(AUTH_TYPES))}"'
        )
    return {
        'address': _address(node, info['redfish_address']),
        'system_id': system_id,
        'username': info.get('redfish_username'),
        'password': info.get('redfish_password'),
        'verify_ca': _verify(node, info.get('redfish_verify_ca', True)),
        'auth_type': auth_type,
        'node_uuid': node.uuid,
    }


class _StopRequested(requests.exceptions.RequestException):
    """A request not sent because the conductor stops. Not one of the
    errors sushy repeats: it gives the request up at once."""


class _StopAwareSession(requests.Session):
    """A requests session that sends nothing once the conductor stops:
    sushy repeats a request the BMC did not answer
    ``[redfish]server_side_retries`` times on its own, on a thread the
    caller may already have given up (:func:`stopping.call`)."""

    def __init__(self, stop: threading.Event) -> None:
        super().__init__()
        self._stop = stop

    def request(
        self,
        method: str,
        url: Any,
        *args: Any,
        **kwargs: Any,
    ) -> requests.Response:
        if self._stop.is_set():
            raise _StopRequested(
                f'{method!s} {url!s} not sent: the conductor is stopping'
            )
        return super().request(method, url, *args, **kwargs)


class _StopAwareConnector(sushy_connector.Connector):
    """sushy's connector on a :class:`_StopAwareSession`."""

    _session: requests.Session

    def __init__(self, stop: threading.Event, url: str, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        session = _StopAwareSession(stop)
        session.headers.update(self._session.headers)
        self._session.close()
        self._session = session


class SessionCache:
    """sushy connections, one per (address, user, password, verify,
    auth type), the least recently used dropped beyond the size."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self.size = conf.redfish.connection_cache_size
        self._lock = threading.Lock()
        self._sessions: collections.OrderedDict[tuple[Any, ...], Any] = (
            collections.OrderedDict()
        )

    def get(self, info: dict[str, Any]) -> Any:
        key = (
            info['address'],
            info['username'],
            info['password'],
            info['verify_ca'],
            info['auth_type'],
        )
        with self._lock:
            if key in self._sessions:
                self._sessions.move_to_end(key)
                return self._sessions[key]
        auth = AUTH_TYPES[info['auth_type']](
            username=info['username'], password=info['password']
        )
        options = self.conf.redfish
        url = info['address'] + '/redfish/v1'
        connection = sushy.Sushy(
            url,
            auth=auth,
            connector=_StopAwareConnector(
                stopping.event(self.conf),
                url,
                verify=info['verify_ca'],
                default_request_timeout=options.read_timeout,
                server_side_retries=options.server_side_retries,
                server_side_retries_delay=options.server_side_retries_delay,
            ),
        )
        if self.size:
            with self._lock:
                self._sessions[key] = connection
                while len(self._sessions) > self.size:
                    self._sessions.popitem(last=False)
        return connection

    def forget(self, info: dict[str, Any]) -> None:
        key = (
            info['address'],
            info['username'],
            info['password'],
            info['verify_ca'],
            info['auth_type'],
        )
        with self._lock:
            self._sessions.pop(key, None)


_CACHES: dict[int, SessionCache] = {}
_CACHE_LOCK = threading.Lock()


def _cache(conf: cfg.ConfigOpts) -> SessionCache:
    """One cache per configuration (the all-in-one and the tests run
    several conductors in one process)."""
    with _CACHE_LOCK:
        cache = _CACHES.get(id(conf))
        if cache is None or cache.conf is not conf:
            cache = _CACHES[id(conf)] = SessionCache(conf)
        return cache


def _retrying(
    conf: cfg.ConfigOpts,
    info: dict[str, Any],
    call: Callable[[], T],
    what: str,
) -> T:
    """``call`` tried [redfish]connection_attempts times while the BMC
    does not answer; other errors at once. Each attempt runs on a thread
    of its own that a stop of the conductor gives up, and a stop ends
    the wait between two attempts (:mod:`stopping`).

    :raises BMCCallStopped: the conductor stops.
    """
    attempts = conf.redfish.connection_attempts
    try:
        for attempt in range(1, attempts + 1):
            try:
                return stopping.call(conf, call, name='redfish-call')
            except sushy.exceptions.ConnectionError as exc:
                _cache(conf).forget(info)
                stopping.check(conf)  # the request was refused for it
                if attempt == attempts:
                    raise RedfishConnectionError(
                        node=info['node_uuid'], error=exc
                    ) from exc
                _log_retry(conf, info, attempt, attempts)
                stopping.wait(conf, conf.redfish.connection_retry_interval)
    except stopping.Stopped:
        raise exception.BMCCallStopped(
            what=what, node=info['node_uuid']
        ) from None
    raise AssertionError('unreachable')


def _log_retry(
    conf: cfg.ConfigOpts, info: dict[str, Any], attempt: int, attempts: int
) -> None:
    LOG.warning(
        'Redfish BMC %(address)s of node %(node)s did not '
        'answer (attempt %(n)d of %(all)d); retrying in '
        '%(wait)s s',
        {
            'address': info['address'],
            'node': info['node_uuid'],
            'n': attempt,
            'all': attempts,
            'wait': conf.redfish.connection_retry_interval,
        },
    )


def _system(conf: cfg.ConfigOpts, info: dict[str, Any]) -> Any:
    """The sushy ``System`` that ``info`` names.

    :raises RedfishConnectionError: the BMC did not answer.
    :raises RedfishError: it answered with an error (no such system,
        credentials refused...).
    """

    def fetch() -> Any:
        connection = _cache(conf).get(info)
        return connection.get_system(info['system_id'])

    node = info['node_uuid']
    try:
        return _retrying(conf, info, fetch, 'Reading the system')
    except sushy.exceptions.ResourceNotFoundError as exc:
        raise RedfishError(
            error=f'the system {info["system_id"]} of node {node} was '
            f'not found at {info["address"]}: {exc}'
        ) from exc
    except sushy.exceptions.AccessError as exc:
        raise RedfishError(
            error=f'the BMC at {info["address"]} refused the credentials '
            f'of node {node}: {exc}'
        ) from exc
    except sushy.exceptions.SushyError as exc:
        raise RedfishError(error=f'node {node}: {exc}') from exc


def connection(conf: cfg.ConfigOpts, node: Any) -> Any:
    """The node's (cached) sushy connection, for the service's root
    resources (the UpdateService)."""
    return _cache(conf).get(parse_driver_info(node))


def get_system(conf: cfg.ConfigOpts, node: Any) -> Any:
    """The node's sushy ``System`` (see :func:`_system`)."""
    return _system(conf, parse_driver_info(node))


def call(
    conf: cfg.ConfigOpts, node: Any, action: Callable[[Any], T], what: str
) -> T:
    """``action(system)`` with the node's system, its sushy errors
    turned into RedfishError saying ``what`` failed."""
    info = parse_driver_info(node)
    system = _system(conf, info)
    try:
        return _retrying(conf, info, lambda: action(system), what)
    except sushy.exceptions.SushyError as exc:
        raise RedfishError(
            error=f'{what} failed for node {node.uuid}: {exc}'
        ) from exc
