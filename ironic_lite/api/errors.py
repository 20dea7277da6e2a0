"""Error bodies in the Bare Metal API format.

``{"error_message": "<JSON string>"}`` where the string holds
``{"faultcode": "Client" | "Server", "faultstring": message,
"debuginfo": null}``: the clients parse the inner document and show
``faultstring``.
"""

import orjson
import webob


def baremetal_error(status: int, message: str,
                    req: webob.Request) -> tuple[str, bytes]:
    inner = {'faultcode': 'Server' if status >= 500 else 'Client',
             'faultstring': message, 'debuginfo': None}
    body = {'error_message': orjson.dumps(inner).decode()}
    return 'application/json', orjson.dumps(body)
