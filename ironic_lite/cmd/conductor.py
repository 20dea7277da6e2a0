"""ironic-lite-conductor: drives bare metal nodes through their states.

    ironic-lite-conductor [--config-file FILE]

Serves the RPC topic ``ironic-lite.conductor`` as ``[DEFAULT]host``
until SIGTERM or SIGINT, then lets the running node operations finish
and marks itself offline. Refuses to start (exit 78) when the enabled
hardware types or interfaces cannot be loaded.
"""

import sys

from ironic_lite import service
from ironic_lite.cmd import common

NAME = 'ironic-lite-conductor'


def main() -> int:
    return common.serve(NAME, service.conductor_service,
                        metrics_listener=True)


if __name__ == '__main__':
    sys.exit(main())
