"""ironic-lite-api: the Bare Metal API v1 on cheroot.

    ironic-lite-api [--config-file FILE]

Listens on ``[api]host_ip``:``[api]port`` with ``[api]threads`` worker
threads until SIGTERM or SIGINT. Reads go to the database; every change
goes over RPC to the conductor that owns the node.
"""

# The threading backend must be selected before anything imports
# oslo_messaging (the design uses native threads only).
from lite_common import backend

backend.select_threading()

import sys  # noqa: E402

from oslo_config import cfg  # noqa: E402

from ironic_lite.cmd import common  # noqa: E402
from ironic_lite.db import api as db_api  # noqa: E402
from lite_common import service as lite_service  # noqa: E402
from lite_common.wsgi import server as wsgi_server  # noqa: E402

NAME = 'ironic-lite-api'


def api_server(conf: cfg.ConfigOpts) -> wsgi_server.APIServer:
    """The API application served by cheroot, as a Launcher runnable."""
    from ironic_lite.api import app

    return wsgi_server.APIServer(
        NAME, app.load_app(conf), conf.api.host_ip, conf.api.port,
        threads=conf.api.threads)


def main() -> int:
    conf = common.load_config(sys.argv[1:], NAME)

    def body() -> int:
        db_api.configure(conf)
        db_api.get_engine().connect().close()
        launcher = lite_service.Launcher()
        launcher.add(api_server(conf))
        return launcher.run()

    return common.run_daemon(NAME, body)


if __name__ == '__main__':
    sys.exit(main())
