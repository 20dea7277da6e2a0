"""Error bodies in the Compute API format.

``{"itemNotFound": {"code": 404, "message": "..."}}``; codes without a
name of their own are ``computeFault``.
"""

import json

import webob

FAULT_NAMES = {
    400: 'badRequest',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'itemNotFound',
    405: 'badMethod',
    409: 'conflictingRequest',
    413: 'overLimit',
    415: 'badMediaType',
    429: 'overLimit',
    501: 'notImplemented',
    503: 'serviceUnavailable',
}


def compute_error(
    status: int, message: str, req: webob.Request
) -> tuple[str, bytes]:
    name = FAULT_NAMES.get(status, 'computeFault')
    body = {name: {'code': status, 'message': message}}
    return 'application/json', json.dumps(body).encode()


def image_error(
    status: int, message: str, req: webob.Request
) -> tuple[str, bytes]:
    """The Image API's error body (as Glance renders webob errors)."""
    title = webob.exc.status_map.get(status)
    body = {
        'code': status,
        'title': title.title if title else 'Error',
        'message': message,
    }
    return 'application/json', json.dumps(body).encode()
