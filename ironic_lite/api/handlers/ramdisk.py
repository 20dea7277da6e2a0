"""The endpoints a ramdisk agent calls without credentials (API 1.22):
``GET /v1/lookup`` finds the node the agent runs on by its MAC
addresses (or uuid), ``POST /v1/heartbeat/{node_ident}`` says it is
alive and where it listens. From 1.36 a heartbeat names the agent's
version, from 1.62 the lookup hands out the agent token the heartbeats
must carry, from 1.68 the agent's TLS certificate (``agent_verify_ca``)
and from 1.72 an installer's status.

The order of the checks, and their answers, are upstream's: 403 when
``[api]enable_ramdisk_endpoints`` is off, 404 below 1.22, and a 404 that
does not say whether the node does not exist or is in a state where no
agent runs on it. Such a refused look-up is logged as a WARNING once
per node (or addresses) in five minutes, at DEBUG in between: the agent
asks again every second (:mod:`ironic_lite.api.log_limit`).
"""

import re
from typing import Any
import urllib.parse

from oslo_log import log as logging
from oslo_utils import netutils
from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import log_limit
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import node_access
from ironic_lite.api.schemas import nodes as node_schemas
from ironic_lite.api.views import nodes as views
from ironic_lite.common import agent_token
from ironic_lite.common import states
from ironic_lite.db import nodes as db_nodes

LOG = logging.getLogger(__name__)

#: The node fields a lookup returns (and its links), as upstream's.
LOOKUP_FIELDS = (
    'uuid',
    'properties',
    'instance_info',
    'driver_internal_info',
    'links',
)
#: Statuses an installer may report (1.72).
AGENT_STATUSES = ('start', 'end', 'error')
#: Management interfaces whose BMC address the conductor knows: the agent
#: need not look for it.
_OUT_OF_BAND = ('redfish', 'idrac-redfish')

_NAME = re.compile(node_schemas.NAME_PATTERN)

HEARTBEAT: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'callback_url': {'type': 'string'},
        'agent_version': {'type': ['string', 'null']},
        'agent_token': {'type': ['string', 'null']},
        'agent_verify_ca': {'type': ['string', 'null']},
        'agent_status': {'type': ['string', 'null']},
        'agent_status_message': {'type': ['string', 'null']},
    },
    'required': ['callback_url'],
    'additionalProperties': False,
}


def check_enabled(req: webob.Request) -> None:
    """A 403 unless ``[api]enable_ramdisk_endpoints`` (before anything
    else, as upstream)."""
    if not util.deps(req).conf.api.enable_ramdisk_endpoints:
        raise webob.exc.HTTPForbidden(
            explanation=f'Access was denied to the following resource: '
            f'{req.path_info}'
        )


def not_found() -> webob.exc.HTTPNotFound:
    return webob.exc.HTTPNotFound(explanation='Resource could not be found.')


def _addresses(value: str | None) -> list[str]:
    """The valid MAC addresses of a comma-separated list, normalized;
    others are ignored (with a warning), as upstream."""
    valid, invalid = [], []
    for address in (value or '').split(','):
        address = address.strip()
        if not address:
            continue
        if netutils.is_valid_mac(address):
            valid.append(address.lower())
        else:
            invalid.append(address)
    if invalid:
        LOG.warning(
            'The lookup ignores the invalid MAC addresses %s',
            ', '.join(invalid),
        )
    return valid


def agent_config(
    conf: Any, row: dict[str, Any], token: str | None
) -> dict[str, Any]:
    """What the agent is told to do: upstream's keys, with this
    service's values (no agent metrics, no containers, no MD5)."""
    return {
        'metrics': {
            'backend': 'noop',
            'prepend_host': False,
            'prepend_uuid': False,
            'prepend_host_reverse': True,
            'global_prefix': None,
        },
        'metrics_statsd': {'statsd_host': 'localhost', 'statsd_port': 8125},
        'heartbeat_timeout': conf.api.ramdisk_heartbeat_timeout,
        'agent_containers': {
            'allow_arbitrary_containers': False,
            'allowed_containers': [],
            'container_steps_file': '/etc/ironic-python-agent.d/mysteps.yaml',
            'runner': 'podman',
            'pull_options': [],
            'run_options': ['--rm', '--network=host'],
        },
        'agent_token': token,
        'agent_token_required': True,
        'agent_md5_checksum_enable': False,
        'disable_deep_image_inspection': False,
        'permitted_image_formats': ['raw', 'gpt', 'qcow2', 'iso'],
        'agent_skip_bmc_detect': row.get('management_interface')
        in _OUT_OF_BAND,
        'enable_bios_bootloader_install': False,
        'tls_min_version': '1.3',
        'tls_cipher_suites': None,
    }


def _find(
    req: webob.Request, addresses: list[str], node_uuid: str | None
) -> dict[str, Any]:
    ctx = util.context(req)
    try:
        if node_uuid:
            row = db_nodes.node_get(ctx, util.canonical_uuid(node_uuid))
        else:
            row = db_nodes.node_get_by_port_addresses(ctx, addresses)
    except exception.NotFound as exc:
        # One answer for "no such node" and "not now" (below): the
        # caller learns nothing about nodes it cannot use.
        _limited_log(req).warning(
            LOG,
            node_uuid or ','.join(sorted(addresses)),
            'No node was found for a lookup: %(err)s',
            {'err': exc},
        )
        raise not_found()
    if (
        util.deps(req).conf.api.restrict_lookup
        and row['provision_state'] not in states.LOOKUP_ALLOWED_STATES
    ):
        _limited_log(req).warning(
            LOG,
            row['uuid'],
            'Lookup is not allowed for node %(node)s in '
            'provision state %(state)s',
            {'node': row['uuid'], 'state': row['provision_state']},
        )
        raise not_found()
    return row


def _limited_log(req: webob.Request) -> log_limit.LimitedLog:
    """The refused look-ups' log: an agent asks every second for as long
    as it runs (see :mod:`log_limit`)."""
    return util.deps(req).lookup_log


def agent_answer(req: webob.Request, row: dict[str, Any]) -> dict[str, Any]:
    """What a lookup answers an agent: the node's restricted fields and
    the agent's configuration with its token (masked if it has one)."""
    token = (row.get('driver_internal_info') or {}).get(agent_token.TOKEN_KEY)
    view = views.NodeView(util.base_url(req), LOOKUP_FIELDS)
    return {
        'node': view.render(row),
        'config': agent_config(util.deps(req).conf, row, token),
    }


def lookup(req: webob.Request) -> webob.Response:
    check_enabled(req)
    util.require_version(req, mv.RAMDISK)
    util.authorize(req, 'baremetal:driver:ipa_lookup')
    node_uuid = req.GET.get('node_uuid')
    if node_uuid is not None and not uuidutils.is_uuid_like(node_uuid):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID for node_uuid: {node_uuid}'
        )
    addresses = _addresses(req.GET.get('addresses'))
    if not addresses and not node_uuid:
        raise webob.exc.HTTPBadRequest(
            explanation="At least one of 'addresses' and 'node_uuid' "
            'parameters is required'
        )
    row = _find(req, addresses, node_uuid)
    if util.version(req).at_least(mv.AGENT_TOKEN):
        row = util.deps(req).conductor.get_node_with_token(
            util.context(req), row
        )
    return util.json_response(agent_answer(req, row))


def _check_heartbeat_fields(req: webob.Request, body: dict[str, Any]) -> None:
    version = util.version(req)
    if body.get('agent_version') and version.below(mv.AGENT_VERSION):
        raise webob.exc.HTTPBadRequest(
            explanation='Field "agent_version" not recognised'
        )
    if (body.get('agent_status') or body.get('agent_status_message')) and (
        version.below(mv.AGENT_STATUS)
    ):
        raise webob.exc.HTTPBadRequest(
            explanation='Fields "agent_status" and "agent_status_message" '
            'not recognised.'
        )


def _callback_url(value: str) -> str:
    """The agent's URL: http(s), or empty (an installer's one-way
    heartbeat)."""
    if value == '':
        return value
    try:
        parsed = urllib.parse.urlparse(value)
    except ValueError:
        parsed = None
    if parsed is None or 'http' not in parsed.scheme:
        raise webob.exc.HTTPBadRequest(
            explanation='An issue with the supplied "callback_url" has '
            'been detected.'
        )
    return parsed.geturl()


def heartbeat(req: webob.Request) -> webob.Response:
    check_enabled(req)
    util.require_version(req, mv.RAMDISK)
    body = util.read_body(req, HEARTBEAT)
    _check_heartbeat_fields(req, body)
    util.authorize(req, 'baremetal:node:ipa_heartbeat')
    if body.get('agent_verify_ca') is not None and util.version(req).below(
        mv.AGENT_VERIFY_CA
    ):
        raise webob.exc.HTTPBadRequest(
            explanation='Field "agent_verify_ca" not recognised in this '
            'version'
        )
    ident = req.urlvars['node_ident']
    if not (uuidutils.is_uuid_like(ident) or _NAME.match(ident)):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected a logical name or UUID but received '
            f'{ident}.'
        )
    row = node_access.get_node(req, ident)
    callback_url = _callback_url(body['callback_url'])
    known_url = (row.get('driver_internal_info') or {}).get(
        agent_token.URL_KEY
    )
    if known_url is not None and known_url != callback_url:
        LOG.error(
            'Node %(node)s: heartbeat with callback URL %(url)s, '
            "not the agent's; ignored",
            {'node': row['uuid'], 'url': callback_url},
        )
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid input: Detected change in ramdisk '
            'provided "callback_url"'
        )
    if body.get('agent_token') is None:
        LOG.error(
            'Node %s: heartbeat without an agent token refused', row['uuid']
        )
        raise webob.exc.HTTPBadRequest(
            explanation='Agent token is required for heartbeat processing.'
        )
    status = body.get('agent_status')
    if status is not None and status not in AGENT_STATUSES:
        raise webob.exc.HTTPBadRequest(
            explanation='Agent status is invalid. Valid states are '
            f'{",".join(AGENT_STATUSES)}.'
        )
    util.deps(req).conductor.heartbeat(
        util.context(req),
        row,
        callback_url,
        body.get('agent_version'),
        body['agent_token'],
        body.get('agent_verify_ca'),
        status,
        body.get('agent_status_message'),
    )
    return webob.Response(status=202)
