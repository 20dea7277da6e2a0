"""``POST /v1/continue_inspection`` (API 1.84): a ramdisk agent sends
what it found on a node in ``inspect wait``; the node is looked up by
the agent's MAC addresses (its ports), its BMC addresses (the node's
``*_address`` in ``driver_info``) or the ``node_uuid`` it was given, and
the data goes to the node's inspect interface on its conductor.

As upstream's: no credentials (``[api]enable_ramdisk_endpoints``), one
``404`` for every lookup failure (no node, several nodes, a node not in
inspect wait: the caller learns nothing), ``202`` with the node and the
agent's configuration (its token) from 1.84, ``{"uuid": ...}`` at 1.1
(ironic-inspector's callback, which the base version still serves).
Nodes are not enrolled from an unknown machine's data (upstream's
``[auto_discovery]``, off by default there, is not offered).
"""

from typing import Any
import urllib.parse

from oslo_log import log as logging
from oslo_utils import netutils
from oslo_utils import uuidutils
import webob
import webob.exc

from ironic_lite import exception
from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import ramdisk
from ironic_lite.common import states
from ironic_lite.db import nodes as db_nodes

LOG = logging.getLogger(__name__)

#: The least an inventory holds (upstream's schema).
BODY: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'inventory': {
            'type': 'object',
            'properties': {
                'bmc_address': {'type': ['string', 'null']},
                'bmc_v6address': {'type': ['string', 'null']},
                'interfaces': {
                    'type': 'array',
                    'items': {
                        'type': 'object',
                        'properties': {'mac_address': {'type': 'string'}},
                        'required': ['mac_address'],
                    },
                    'minItems': 1,
                },
            },
            'required': ['interfaces'],
        },
    },
    'required': ['inventory'],
}


def _check_version(req: webob.Request, node_uuid: str | None) -> None:
    version = util.version(req)
    new = version.at_least(mv.CONTINUE_INSPECTION)
    if not (new or str(version) == mv.MIN_VERSION) or (node_uuid and not new):
        raise webob.exc.HTTPNotFound(
            explanation=f'API version {mv.CONTINUE_INSPECTION} or newer is '
            'required'
        )


def _bmc_hosts(driver_info: dict[str, Any]) -> set[str]:
    """The BMC addresses a node's driver_info names (a URL's host)."""
    hosts = set()
    for key, value in (driver_info or {}).items():
        if not key.endswith('_address') or not isinstance(value, str):
            continue
        host = (
            urllib.parse.urlparse(value).hostname if '://' in value else value
        )
        if host:
            hosts.add(host.strip('[]').lower())
    return hosts


def _by_macs(
    req: webob.Request, macs: list[str], known: dict[str, Any] | None
) -> dict[str, Any] | None:
    try:
        row = db_nodes.node_get_by_port_addresses(util.context(req), macs)
    except exception.NodeNotFound as exc:
        if 'more than one' in str(exc):
            LOG.error(
                'Conflict on inspection lookup: several nodes have '
                'ports at %s',
                ', '.join(macs),
            )
            raise ramdisk.not_found()
        return known
    if known and row['uuid'] != known['uuid']:
        LOG.error(
            'Conflict on inspection lookup: node %(known)s does not '
            'have the MAC addresses %(macs)s, node %(other)s does',
            {
                'known': known['uuid'],
                'macs': ', '.join(macs),
                'other': row['uuid'],
            },
        )
        raise ramdisk.not_found()
    return row


def _by_bmc(
    req: webob.Request, bmcs: list[str], known: dict[str, Any] | None
) -> dict[str, Any] | None:
    wanted = {address.lower() for address in bmcs}
    matching = [
        row
        for row in db_nodes.node_list(
            util.context(req), filters={'provision_state': states.INSPECTWAIT}
        )
        if _bmc_hosts(row['driver_info']) & wanted
    ]
    if (
        known
        and matching
        and known['uuid'] not in {row['uuid'] for row in matching}
    ):
        LOG.error(
            'Conflict on inspection lookup: node %(known)s and '
            "nodes %(others)s match the agent's addresses",
            {
                'known': known['uuid'],
                'others': ', '.join(r['uuid'] for r in matching),
            },
        )
        raise ramdisk.not_found()
    if not known and matching:
        if len(matching) > 1:
            LOG.error(
                'Several nodes match BMC address(es) %s and none '
                'the MAC addresses',
                ', '.join(bmcs),
            )
            raise ramdisk.not_found()
        return matching[0]
    return known


def lookup_node(
    req: webob.Request, macs: list[str], bmcs: list[str], node_uuid: str | None
) -> dict[str, Any]:
    """The one node in inspect wait the agent's data is about.

    :raises HTTPNotFound: none (whatever the reason, as upstream).
    """
    known = None
    if node_uuid:
        try:
            known = db_nodes.node_get(
                util.context(req), util.canonical_uuid(node_uuid)
            )
        except exception.NodeNotFound:
            raise ramdisk.not_found()
    if macs:
        known = _by_macs(req, macs, known)
    if known and known['provision_state'] != states.INSPECTWAIT:
        LOG.error(
            'Node %(node)s was found by an inspection lookup but is '
            'in provision state %(state)s',
            {'node': known['uuid'], 'state': known['provision_state']},
        )
        raise ramdisk.not_found()
    if bmcs:
        known = _by_bmc(req, bmcs, known)
    if known is None:
        LOG.error(
            'No node matches MAC addresses (%(macs)s) and BMC '
            'address(es) (%(bmc)s) of an inspection lookup',
            {'macs': ', '.join(macs), 'bmc': ', '.join(bmcs)},
        )
        raise ramdisk.not_found()
    return known


def continue_inspection(req: webob.Request) -> webob.Response:
    # The arguments first, then whether the endpoint is served, as
    # upstream's decorators order them.
    node_uuid = req.GET.get('node_uuid')
    if node_uuid is not None and not uuidutils.is_uuid_like(node_uuid):
        raise webob.exc.HTTPBadRequest(
            explanation=f'Expected UUID for node_uuid: {node_uuid}'
        )
    data = util.read_body(req, BODY)
    ramdisk.check_enabled(req)
    _check_version(req, node_uuid)
    util.authorize(req, 'baremetal:driver:ipa_continue_inspection')
    inventory = data.pop('inventory')
    macs = [
        str(i['mac_address']).lower()
        for i in inventory['interfaces']
        if netutils.is_valid_mac(str(i['mac_address']))
    ]
    bmcs = [
        a
        for a in (inventory.get('bmc_address'), inventory.get('bmc_v6address'))
        if a
    ]
    if not macs and not bmcs and not node_uuid:
        raise webob.exc.HTTPBadRequest(
            explanation='No lookup information provided'
        )
    row = lookup_node(req, macs, bmcs, node_uuid)
    conductor = util.deps(req).conductor
    new = util.version(req).at_least(mv.CONTINUE_INSPECTION)
    if new:
        # Before the data is processed, which may take long: the token
        # needs the node's lock.
        row = conductor.get_node_with_token(util.context(req), row)
    conductor.continue_inspection(util.context(req), row, inventory, data)
    if not new:
        return util.json_response({'uuid': row['uuid']}, status=202)
    return util.json_response(ramdisk.agent_answer(req, row), status=202)
