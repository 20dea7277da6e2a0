"""ironic-lite-api: the Bare Metal API v1 on waitress.

    ironic-lite-api [--config-file FILE]

Listens on ``[api]host_ip``:``[api]port`` with ``[api]threads`` worker
threads (and a listen backlog of ``[api]backlog`` connections) until
SIGTERM or SIGINT. Reads go to the database; every change
goes over RPC to the conductor that owns the node.
"""

import sys

from oslo_config import cfg

from ironic_lite.cmd import common
from lite_common.wsgi import server as wsgi_server

NAME = 'ironic-lite-api'


def api_server(conf: cfg.ConfigOpts) -> wsgi_server.APIServer:
    """The API application served by waitress, as a Launcher runnable."""
    from ironic_lite.api import app
    from ironic_lite.api import errors

    return wsgi_server.APIServer(
        NAME,
        app.load_app(conf),
        conf.api.host_ip,
        conf.api.port,
        wsgi_server.Settings.from_group(conf.api),
        errors.baremetal_error,
    )


def main() -> int:
    return common.serve(NAME, lambda conf, _launcher: api_server(conf))


if __name__ == '__main__':
    sys.exit(main())
