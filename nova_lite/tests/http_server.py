"""A WSGI application on a loopback port, in a thread of the test's
process (for the services of an in-process stack that call the API over
HTTP, as the compute agent's image uploads do)."""

import dataclasses
import socketserver
import threading
from typing import Any
from wsgiref import simple_server


class _Quiet(simple_server.WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


class _Threaded(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


@dataclasses.dataclass
class Served:
    url: str
    server: simple_server.WSGIServer
    thread: threading.Thread

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def serve(app: Any) -> Served:
    """``app`` on 127.0.0.1 at a free port until :meth:`Served.stop`."""
    server = simple_server.make_server(
        '127.0.0.1', 0, app, server_class=_Threaded, handler_class=_Quiet
    )
    thread = threading.Thread(
        target=server.serve_forever, name='test-api-http', daemon=True
    )
    thread.start()
    return Served(f'http://127.0.0.1:{server.server_port}', server, thread)
