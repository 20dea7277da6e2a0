"""Error bodies in the Bare Metal API format.

``{"error_message": "<JSON string>"}`` where the string holds
``{"faultcode": "Client" | "Server", "faultstring": message,
"debuginfo": null}``: the clients parse the inner document and show
``faultstring``.
"""

import orjson
import webob


def _printable(message: str) -> str:
    """``message`` with what UTF-8 cannot hold (lone surrogates, e.g.
    from a request) escaped: rendering an error must never fail."""
    return message.encode('utf-8', 'backslashreplace').decode('utf-8')


def baremetal_error(
    status: int, message: str, req: webob.Request
) -> tuple[str, bytes]:
    inner = {
        'faultcode': 'Server' if status >= 500 else 'Client',
        'faultstring': message,
        'debuginfo': None,
    }
    try:
        text = orjson.dumps(inner).decode()
    except orjson.JSONEncodeError:
        inner['faultstring'] = _printable(message)
        text = orjson.dumps(inner).decode()
    return 'application/json', orjson.dumps({'error_message': text})
