"""Request ids and one log line per request.

Each request starts with a fresh, anonymous request context carrying its
id (oslo.log reads the thread's current context into every line), so a
line logged before authentication, or by a request that fails it, never
shows the user of an earlier request on the same worker thread.
Everything taken from a request is logged through
:func:`lite_common.wsgi.text.printable`.
"""

import time
from typing import Any

from oslo_log import log as logging
from oslo_utils import uuidutils

from lite_common import context as lite_context
from lite_common.wsgi.text import printable
from lite_common.wsgi.text import url_text

LOG = logging.getLogger(__name__)

REQUEST_ID_HEADER = 'X-OpenStack-Request-Id'
NOVA_REQUEST_ID_HEADER = 'X-Compute-Request-Id'


def _path(environ: dict[str, Any]) -> str:
    path = url_text(environ.get('PATH_INFO', ''))
    query = environ.get('QUERY_STRING')
    return printable(path + ('?' + query if query else ''))


class RequestLog:
    """Gives every request an id (returned in a header) and logs it."""

    def __init__(self, app: Any, extra_id_header: str | None = None) -> None:
        self.app = app
        self.extra_id_header = extra_id_header

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request_id = 'req-' + uuidutils.generate_uuid()
        environ['openstack.request_id'] = request_id
        # Replaces the thread's current context (the previous request's).
        lite_context.RequestContext(request_id=request_id, overwrite=True)
        started = time.monotonic()
        state: dict[str, Any] = {}

        def _start_response(
            status: str, headers: list[Any], exc_info: Any = None
        ) -> Any:
            state['status'] = status.split(' ', 1)[0]
            headers.append((REQUEST_ID_HEADER, request_id))
            if self.extra_id_header:
                headers.append((self.extra_id_header, request_id))
            return start_response(status, headers, exc_info)

        try:
            return self.app(environ, _start_response)
        finally:
            LOG.info(
                '%(addr)s "%(method)s %(path)s" status: %(status)s '
                'time: %(time).4f request_id: %(rid)s',
                {
                    'addr': printable(environ.get('REMOTE_ADDR', '-')),
                    'method': printable(environ.get('REQUEST_METHOD')),
                    'path': _path(environ),
                    'status': state.get('status', '-'),
                    'time': time.monotonic() - started,
                    'rid': request_id,
                },
            )
