"""Request ids and one log line per request."""

import time
from typing import Any

from oslo_log import log as logging
from oslo_utils import uuidutils

LOG = logging.getLogger(__name__)

REQUEST_ID_HEADER = 'X-OpenStack-Request-Id'
NOVA_REQUEST_ID_HEADER = 'X-Compute-Request-Id'


class RequestLog:
    """Gives every request an id (returned in a header) and logs it."""

    def __init__(self, app: Any, extra_id_header: str | None = None) -> None:
        self.app = app
        self.extra_id_header = extra_id_header

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request_id = 'req-' + uuidutils.generate_uuid()
        environ['openstack.request_id'] = request_id
        started = time.monotonic()
        state: dict[str, Any] = {}

        def _start_response(status: str, headers: list[Any],
                            exc_info: Any = None) -> Any:
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
                {'addr': environ.get('REMOTE_ADDR', '-'),
                 'method': environ.get('REQUEST_METHOD'),
                 'path': environ.get('PATH_INFO', '')
                 + ('?' + environ['QUERY_STRING']
                    if environ.get('QUERY_STRING') else ''),
                 'status': state.get('status', '-'),
                 'time': time.monotonic() - started,
                 'rid': request_id})
