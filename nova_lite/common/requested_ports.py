"""Ports a server create asks for (``"networks": [{"port": <uuid>}]``).

nova_lite has no networking service: a port is not looked up, created
or bound anywhere. It is an id the ironic virt driver attaches to the
server's bare metal node as a VIF (``POST /v1/nodes/{node}/vifs``)
before deploying, and detaches when the server is deleted, as upstream's
driver plugs the ports Neutron gave it. The Bare Metal service's network
interface decides what that means (``flat`` binds it to a free port of
the node; ``noop`` accepts it and records nothing).

The ids are kept in the instance's system metadata under :data:`KEY`.
"""

import json
from typing import Any

from oslo_utils import uuidutils

KEY = 'requested_ports'


class Refused(ValueError):
    """A request the API answers with 400 (the message is upstream's
    where there is one)."""


def parse(networks: Any) -> list[str]:
    """The port ids of a create's ``networks`` (``auto``, ``none`` or a
    list); only ``port`` entries are possible without a networking
    service."""
    if not isinstance(networks, list):
        return []
    ports: list[str] = []
    for entry in networks:
        if set(entry) - {'port', 'tag'} or not entry.get('port'):
            raise Refused(
                'nova_lite has no networking service: a network can be '
                'requested only as an existing port ({"port": "<uuid>"}, '
                'for a bare metal flavor), otherwise request "networks": '
                '"none" (openstack server create --no-network).'
            )
        port = entry['port']
        if not isinstance(port, str) or not uuidutils.is_uuid_like(port):
            raise Refused(
                'Bad networks format: port uuid is not in proper '
                f'format ({port})'
            )
        if port in ports:
            raise Refused(f'Port {port} is still in use.')
        ports.append(port)
    return ports


def encode(ports: list[str]) -> dict[str, str]:
    """System metadata holding ``ports`` (none: nothing)."""
    return {KEY: json.dumps(ports)} if ports else {}


def decode(system_metadata: dict[str, Any] | None) -> list[str]:
    """The port ids kept in an instance's system metadata."""
    value = (system_metadata or {}).get(KEY)
    if not value:
        return []
    try:
        ports = json.loads(value)
    except ValueError:
        return []
    return [p for p in ports if isinstance(p, str)]
