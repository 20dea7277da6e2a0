"""A node's IPMI connection: its ``driver_info`` checked, and one pyghmi
session per operation (logged in, used, logged out), as ipmitool does.

The driver_info keys are upstream Ironic's (``ipmi_address``,
``ipmi_port``, ``ipmi_username``, ``ipmi_password``,
``ipmi_priv_level``, ``ipmi_hex_kg_key``); the ipmitool-only ones
(bridging, IPMI 1.5) are refused with a message saying so. The password
and the Kg key never appear in a message or a log line.

Three things about pyghmi shape :func:`call`:

- its session cache matches credentials given as bytes only (given as
  text, a failed login stays cached and every later one fails), so
  they are passed as bytes;
- a BMC that keeps a login half open can hold a pyghmi call for ever,
  so every operation runs on a thread of its own, given up after
  ``[ipmi]operation_timeout`` seconds;
- a BMC that does not answer shows as an exception without a useful
  message (``None``, ``timeout``, ``Session no longer connected``);
  those are retried for ``[ipmi]command_retry_timeout`` seconds, other
  errors (credentials or a command refused) fail at once;
- a conductor that stops gives its calls and their retries up at once
  (:mod:`ironic_lite.common.stopping`), raising
  :class:`~ironic_lite.exception.BMCCallStopped`.
"""

from collections.abc import Callable
import ipaddress
import re
import socket
import time
from typing import Any
from typing import TypeVar

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import netutils
from pyghmi import exceptions as pyghmi_exc
from pyghmi.ipmi import command as ipmi_command

from ironic_lite import exception
from ironic_lite.common import stopping

LOG = logging.getLogger(__name__)
T = TypeVar('T')

DEFAULT_PORT = 623
#: ipmi_priv_level -> pyghmi's privilege number.
PRIV_LEVELS = {'CALLBACK': 1, 'USER': 2, 'OPERATOR': 3, 'ADMINISTRATOR': 4}

REQUIRED_PROPERTIES = {
    'ipmi_address': 'IP address or hostname of the node. Required.',
}
OPTIONAL_PROPERTIES = {
    'ipmi_password': 'password. Optional.',
    'ipmi_port': f'remote IPMI RMCP port; default is {DEFAULT_PORT}. '
    'Optional.',
    'ipmi_username': 'username; default is NULL user. Optional.',
    'ipmi_priv_level': 'privilege level; default is ADMINISTRATOR. One of '
    f'{", ".join(PRIV_LEVELS)}. Optional.',
    'ipmi_hex_kg_key': 'Kg key for IPMIv2 authentication. The key is '
    'expected in hexadecimal format. Optional.',
    'ipmi_protocol_version': 'the version of the IPMI protocol; only '
    '"2.0" (the default) with this driver. Optional.',
}
COMMON_PROPERTIES = {**REQUIRED_PROPERTIES, **OPTIONAL_PROPERTIES}
#: What pyghmi says when the BMC did not answer (or stopped answering).
SILENCE = frozenset(
    {
        '',
        'None',
        'timeout',
        'Session no longer connected',
        'Session Disconnected',
        'Session failed to initialize',
    }
)
_HOSTNAME = re.compile(
    r'^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}'
    r'[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}'
    r'[a-zA-Z0-9])?)*\.?$'
)


def _invalid(message: str) -> exception.InvalidParameterValue:
    return exception.InvalidParameterValue(err=message)


def _address(node: Any, value: Any) -> str:
    address = str(value).strip()
    try:
        ipaddress.ip_address(address)
        return address
    except ValueError:
        pass
    if not _HOSTNAME.match(address):
        raise _invalid(
            f'Invalid IPMI address "{value}" for node '
            f'{node.uuid}. Must be a valid IP address or '
            'hostname.'
        )
    return address


def _port(node: Any, value: Any) -> int:
    if value is None:
        return DEFAULT_PORT
    if isinstance(value, bool) or not netutils.is_valid_port(value):
        raise _invalid(
            f'ipmi_port "{value}" is not a valid port (node {node.uuid}).'
        )
    return int(value)


def _kg(node: Any, value: Any) -> bytes | None:
    if value in (None, ''):
        return None
    text = str(value)
    if len(text) % 2:
        raise _invalid(
            'Number of ipmi_hex_kg_key characters is not even '
            f'(node {node.uuid}).'
        )
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise _invalid(
            f'ipmi_hex_kg_key is not hexadecimal (node {node.uuid}).'
        ) from None


def _check_ipmitool_only(node: Any, info: dict[str, Any]) -> None:
    version = str(info.get('ipmi_protocol_version', '2.0'))
    if version != '2.0':
        raise _invalid(
            f'Invalid IPMI protocol version value {version} on '
            f'node {node.uuid}: the ipmi interfaces speak IPMI '
            '2.0 (RMCP+) only.'
        )
    bridging = info.get('ipmi_bridging', 'no')
    if bridging != 'no':
        raise _invalid(
            f'Invalid value for ipmi_bridging: {bridging} on '
            f'node {node.uuid}: the ipmi interfaces do not '
            'bridge requests; the only valid value is "no".'
        )


def parse_driver_info(node: Any) -> dict[str, Any]:
    """The node's IPMI settings, checked.

    :raises MissingParameterValue: no ipmi_address.
    :raises InvalidParameterValue: a value that cannot be used.
    """
    info = node.driver_info or {}
    missing = [key for key in REQUIRED_PROPERTIES if not info.get(key)]
    if missing:
        raise exception.MissingParameterValue(
            err=f'Missing the following IPMI credentials in node '
            f'{node.uuid} driver_info: {", ".join(missing)}'
        )
    priv_level = info.get('ipmi_priv_level')
    if priv_level is not None and priv_level not in PRIV_LEVELS:
        raise _invalid(
            f'Invalid privilege level value:{priv_level} on '
            f'node {node.uuid}, the valid value can be one of '
            f'{", ".join(PRIV_LEVELS)}'
        )
    _check_ipmitool_only(node, info)
    return {
        'address': _address(node, info['ipmi_address']),
        'port': _port(node, info.get('ipmi_port')),
        'username': str(info.get('ipmi_username') or ''),
        'password': str(info.get('ipmi_password') or ''),
        'priv_level': PRIV_LEVELS.get(priv_level or ''),
        'kg': _kg(node, info.get('ipmi_hex_kg_key')),
        'node_uuid': node.uuid,
    }


class _Silent(Exception):
    """The BMC did not answer."""


def _session(info: dict[str, Any]) -> Any:
    return ipmi_command.Command(
        bmc=info['address'],
        port=info['port'],
        userid=info['username'].encode(),
        password=info['password'].encode(),
        kg=info['kg'],
        privlevel=info['priv_level'],
    )


def _run(info: dict[str, Any], action: Callable[[Any], T]) -> T:
    """``action(command)`` on a session logged in for it alone."""
    try:
        command = _session(info)
    except pyghmi_exc.IpmiException as exc:
        if str(exc) in SILENCE:
            raise _Silent(str(exc) or 'no answer') from exc
        raise
    except socket.gaierror:
        raise
    except OSError as exc:
        raise _Silent(str(exc)) from exc
    try:
        return action(command)
    except pyghmi_exc.IpmiException as exc:
        if str(exc) in SILENCE:
            raise _Silent(str(exc) or 'no answer') from exc
        raise
    finally:
        try:
            command.ipmi_session.logout()
        except Exception:  # the BMC went away: nothing to log out of
            LOG.debug('IPMI logout from %s failed', info['address'])


def _bounded(conf: cfg.ConfigOpts, func: Callable[[], T], timeout: float) -> T:
    """``func()`` on a daemon thread, given up after ``timeout`` s (or
    at once when the conductor stops: :class:`stopping.Stopped`)."""
    try:
        return stopping.call(conf, func, timeout, name='ipmi-operation')
    except stopping.TimedOut:
        raise _Silent(f'no complete answer within {timeout:g} s') from None


def call(
    conf: cfg.ConfigOpts,
    node: Any,
    action: Callable[[Any], T],
    what: str,
    extra_time: float = 0,
) -> T:
    """``action(command)`` with a pyghmi ``Command`` logged in to the
    node's BMC; pyghmi errors become IPMIFailure saying ``what`` failed.

    :param extra_time: seconds ``action`` may wait on its own (a power
        change), on top of ``[ipmi]operation_timeout``.
    :raises IPMIConnectionError: the BMC did not answer for
        ``[ipmi]command_retry_timeout`` seconds.
    :raises IPMIFailure: it answered with an error.
    """
    info = parse_driver_info(node)
    try:
        return _call(conf, node, info, action, what, extra_time)
    except stopping.Stopped:
        raise exception.BMCCallStopped(what=what, node=node.uuid) from None


def _call(
    conf: cfg.ConfigOpts,
    node: Any,
    info: dict[str, Any],
    action: Callable[[Any], T],
    what: str,
    extra_time: float,
) -> T:
    """:func:`call`'s attempts (:class:`stopping.Stopped` on a stop)."""
    options = conf.ipmi
    deadline = time.monotonic() + options.command_retry_timeout
    attempt = 0
    while True:
        attempt += 1
        try:
            return _bounded(
                conf,
                lambda: _run(info, action),
                options.operation_timeout + extra_time,
            )
        except _Silent as exc:
            stopping.check(conf)
            # When retries are on, a first attempt that outlasts the
            # whole budget (a session dropped on a loaded host) still
            # gets one retry: one slow answer is not a silent BMC.
            retried = attempt > 1 or not options.command_retry_timeout
            if retried and (
                time.monotonic() + options.min_command_interval > deadline
            ):
                raise exception.IPMIConnectionError(
                    node=node.uuid,
                    address=f'{info["address"]}:{info["port"]}',
                    error=f'{what}: {exc} (after {attempt} attempt(s))',
                ) from None
            LOG.warning(
                'The BMC %(address)s of node %(node)s did not answer '
                '(%(what)s, attempt %(n)d); retrying in %(wait)s s',
                {
                    'address': info['address'],
                    'node': node.uuid,
                    'what': what,
                    'n': attempt,
                    'wait': options.min_command_interval,
                },
            )
            stopping.wait(conf, options.min_command_interval)
        except (exception.IronicLiteException, stopping.Stopped):
            raise  # ours, raised by ``action`` (a power wait...)
        except Exception as exc:
            # pyghmi's errors, and whatever a malformed answer makes it
            # raise: the BMC's fault, not a 500.
            raise exception.IPMIFailure(
                node=node.uuid, error=f'{what} failed: {exc}'
            ) from None
