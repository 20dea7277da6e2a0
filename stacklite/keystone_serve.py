"""``stacklite-keystone``: upstream Keystone's WSGI application served
by the project's own waitress server (:mod:`lite_common.wsgi.server`,
the one both APIs use), for deployments that run Keystone beside
stacklite without uWSGI or Apache.

A generic WSGI server cannot run Keystone as it is: Keystone's
application parses ``sys.argv`` with oslo.config when it is built, so
the server's own arguments (``waitress-serve --listen=...``,
``gunicorn -b ...``) stop it with "unrecognized arguments". This command
reads its own arguments and gives Keystone none. It also builds
Keystone's policy enforcer before the first request (upstream publishes
it before its rules are loaded: a concurrent first request is refused
with a 403) and, on SQLite, takes the write lock at the start of each
transaction (see :mod:`stacklite.identity_server`).

It reads Keystone's own configuration file; the address comes from
``--host`` and ``--port`` (Keystone's configuration has no such
options since its eventlet server went). SIGTERM or SIGINT stops it:
it stops accepting, lets running requests finish (5 s at most) and
exits 0. A missing configuration file exits 78; Keystone refusing its
configuration exits 1 with Keystone's message.
"""

import argparse
import os
import signal
import sys
import threading
from typing import Any

from lite_common import backend

backend.select_threading()

from oslo_log import log as logging  # noqa: E402

from lite_common import private  # noqa: E402

LOG = logging.getLogger(__name__)
#: sysexits' EX_CONFIG, which the unit does not restart after.
CONFIGURATION_ERROR = 78


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog='stacklite-keystone',
        description="Serve upstream Keystone's API with waitress.",
    )
    parser.add_argument(
        '--config-file',
        default='/etc/keystone/keystone.conf',
        help="Keystone's configuration file (default: %(default)s).",
    )
    parser.add_argument(
        '--host',
        default='0.0.0.0',
        help='Address to listen on (default: %(default)s).',
    )
    parser.add_argument(
        '--port',
        type=int,
        default=5000,
        help='Port to listen on (default: %(default)s).',
    )
    parser.add_argument(
        '--threads',
        type=int,
        default=16,
        help='Request threads (default: %(default)s).',
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if not os.path.isfile(args.config_file):
        print(
            f"stacklite-keystone: Keystone's configuration file "
            f'{args.config_file} does not exist: write it, or name '
            'another with --config-file.',
            file=sys.stderr,
        )
        return CONFIGURATION_ERROR
    from lite_common.wsgi import server
    from stacklite import identity_server

    private.restrict_umask()
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    identity_server.one_sqlite_writer_at_a_time()
    try:
        identity_server.configure(args.config_file)
        from keystone.server import backends

        backends.load_backends()
        app = identity_server.application()
        api = server.APIServer(
            'keystone',
            app,
            args.host,
            args.port,
            server.Settings(threads=args.threads),
        )
    except Exception as exc:  # a bad file, a database it cannot reach
        LOG.exception('keystone cannot start')
        print(
            f'stacklite-keystone: keystone cannot start: {exc}',
            file=sys.stderr,
            flush=True,
        )
        return 1
    api.start()
    stop.wait()
    LOG.info('keystone stopping')
    api.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
