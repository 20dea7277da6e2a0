"""What a server create gives its guest besides the image: user data
(checked as upstream: base64, 65535 characters at most) and ports
(``networks`` entries naming a port, only for bare metal flavors: see
:mod:`nova_lite.common.requested_ports`)."""

import base64
import binascii
from typing import Any

import webob.exc

from nova_lite.common import requested_ports

MAX_USER_DATA = 65535


def user_data(value: Any) -> str | None:
    """The user data to keep (as given: base64), None when none;
    400 when it is not base64 or too long."""
    if value is None:
        return None
    if len(value) > MAX_USER_DATA:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid input for field/attribute user_data. '
            f'Value: is too long (over {MAX_USER_DATA} characters)'
        )
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid input for field/attribute user_data. '
            "Value: is not a 'base64'"
        ) from None
    return str(value)


def ports(spec: dict[str, Any]) -> list[str]:
    """The port ids of ``spec['networks']``; 400 for anything else than
    ports (whether the flavor can take them is the domain's check:
    :mod:`nova_lite.compute_api.servers`)."""
    try:
        return requested_ports.parse(spec.get('networks', 'auto'))
    except requested_ports.Refused as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc)) from None
