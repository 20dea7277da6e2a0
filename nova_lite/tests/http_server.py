"""A WSGI application on a loopback port, in a thread of the test's
process, served by the server the APIs run on
(:class:`lite_common.wsgi.server.APIServer`, waitress): for the services
of an in-process stack that call the API over HTTP, as the compute
agent's image uploads do, so that they meet the real server's HTTP
handling."""

import dataclasses
from typing import Any

from lite_common.wsgi import server


@dataclasses.dataclass
class Served:
    url: str
    server: server.APIServer

    def stop(self) -> None:
        self.server.stop()


def serve(app: Any) -> Served:
    """``app`` on 127.0.0.1 at a free port until :meth:`Served.stop`."""
    api = server.APIServer(
        'test-api', app, '127.0.0.1', 0, server.Settings(threads=4)
    )
    api.start()
    host, port = api.bind_addr
    return Served(f'http://{host}:{port}', api)
