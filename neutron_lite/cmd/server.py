"""neutron-lite-server: the Networking API v2.0 on waitress.

    neutron-lite-server [--config-file FILE]

Listens on ``[api]host_ip``:``[api]port`` (9696) with ``[api]threads``
worker threads until SIGTERM or SIGINT. Every request reads and writes
the database (``[database]connection``); no RPC, no agents.
"""

import sys

from oslo_config import cfg

from lite_common.wsgi import server as wsgi_server
from neutron_lite.cmd import common

NAME = 'neutron-lite-server'


def api_server(conf: cfg.ConfigOpts) -> wsgi_server.APIServer:
    """The API application served by waitress, as a Launcher runnable."""
    from neutron_lite.api import app
    from neutron_lite.api import errors

    return wsgi_server.APIServer(
        NAME,
        app.load_app(conf),
        conf.api.host_ip,
        conf.api.port,
        wsgi_server.Settings.from_group(conf.api),
        errors.neutron_error,
    )


def main() -> int:
    return common.serve(NAME, lambda conf, _launcher: api_server(conf))


if __name__ == '__main__':
    sys.exit(main())
