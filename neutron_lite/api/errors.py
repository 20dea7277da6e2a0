"""Error bodies in the Networking API format::

    {"NeutronError": {"type": "NetworkNotFound",
                      "message": "Network X could not be found.",
                      "detail": ""}}

``type`` is the exception's (:attr:`neutron_lite.exception.
NeutronLiteException.type_name`, left in the request's environ by
:func:`neutron_lite.api.util.translate_errors`), else webob's class name
for the status (``HTTPNotFound``, ``HTTPMethodNotAllowed`` ...).
"""

import orjson
import webob
import webob.exc

TYPE_KEY = 'neutron_lite.error_type'


def neutron_error(
    status: int, message: str, req: webob.Request
) -> tuple[str, bytes]:
    kind = req.environ.get(TYPE_KEY)
    if not kind:
        cls = webob.exc.status_map.get(status)
        kind = cls.__name__ if cls is not None else 'HTTPError'
    body = {'NeutronError': {'type': kind, 'message': message, 'detail': ''}}
    return 'application/json', orjson.dumps(body)
