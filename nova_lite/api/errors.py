"""Error bodies in the Compute API format.

``{"itemNotFound": {"code": 404, "message": "..."}}``; codes without a
name of their own are ``computeFault``.
"""

import html
import json

import webob
from webob.acceptparse import create_accept_header

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
    """The Image API's error body, as Glance's webob renders it: by the
    Accept header, HTML (also without one: what python-glanceclient,
    which sends none, parses), JSON (``{code, title, message}``) or
    plain text."""
    error = webob.exc.status_map.get(status)
    title = error.title if error else 'Error'
    offers = create_accept_header(
        req.headers.get('Accept', '')
    ).acceptable_offers(offers=['text/html', 'application/json'])
    match = offers[0][0] if offers else None
    if match == 'application/json':
        body = {'code': status, 'title': title, 'message': message}
        return 'application/json', json.dumps(body).encode()
    if match == 'text/html':
        heading = f'{status} {title}'
        page = (
            f'<html>\n <head>\n  <title>{heading}</title>\n </head>\n'
            f' <body>\n  <h1>{heading}</h1>\n  {html.escape(message)}'
            '<br /><br />\n\n\n\n </body>\n</html>'
        )
        return 'text/html; charset=UTF-8', page.encode()
    return (
        'text/plain; charset=UTF-8',
        f'{status} {title}\n\n{message}\n\n   '.encode(),
    )
