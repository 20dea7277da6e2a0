"""ironic-lite-conductor: drives bare metal nodes through their states.

    ironic-lite-conductor [--config-file FILE]

Serves the RPC topic ``ironic-lite.conductor`` as ``[DEFAULT]host``
until SIGTERM or SIGINT, then lets the running node operations finish
and marks itself offline. Refuses to start (exit 78) when the enabled
hardware types or interfaces cannot be loaded.
"""

# The threading backend must be selected before anything imports
# oslo_messaging (the design uses native threads only).
from lite_common import backend

backend.select_threading()

import sys  # noqa: E402

from ironic_lite import service  # noqa: E402
from ironic_lite.cmd import common  # noqa: E402
from ironic_lite.db import api as db_api  # noqa: E402
from lite_common import service as lite_service  # noqa: E402

NAME = 'ironic-lite-conductor'


def main() -> int:
    conf = common.load_config(sys.argv[1:], NAME)

    def body() -> int:
        db_api.configure(conf)
        db_api.get_engine().connect().close()
        launcher = lite_service.Launcher()
        launcher.add(service.conductor_service(conf))
        return launcher.run()

    return common.run_daemon(NAME, body)


if __name__ == '__main__':
    sys.exit(main())
