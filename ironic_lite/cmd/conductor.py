"""ironic-lite-conductor: drives bare metal nodes through their states.

    ironic-lite-conductor [--config-file FILE]

Serves the RPC topic ``ironic-lite.conductor`` as ``[DEFAULT]host``
until SIGTERM or SIGINT, then lets the running node operations finish
and marks itself offline. Refuses to start (exit 78) when the enabled
hardware types or interfaces cannot be loaded, and (exit 1) while
another live process holds its host name. Stops (exit 78) when it finds
that another process took its host name over.
"""

import sys

from oslo_config import cfg

from ironic_lite import service
from ironic_lite.cmd import common
from lite_common import daemon
from lite_common import service as lite_service

NAME = 'ironic-lite-conductor'


def conductor(
    conf: cfg.ConfigOpts, launcher: lite_service.Launcher
) -> service.ConductorService:
    """The conductor; replaced under its host name, it ends the process
    with :data:`lite_common.daemon.EXIT_REFUSED`."""
    return service.conductor_service(
        conf, lambda: launcher.request_stop(daemon.EXIT_REFUSED)
    )


def main() -> int:
    return common.serve(NAME, conductor, metrics_listener=True)


if __name__ == '__main__':
    sys.exit(main())
