"""Serve a WSGI application with waitress on a thread of its own.

Why waitress: its I/O thread reads each request whole before a worker
thread sees it, so slow, idle or silent clients cost a socket and never
a worker (cheroot, used before, gave each connection a worker thread
while it read the request: 20 clients sending one header byte every 5 s
starved it). :mod:`lite_common.wsgi.guarded` adds the deadlines, the
connection limit with a fast 503 and the health check lane.

The options (:func:`server_opts`) are registered in each API's ``[api]``
group. Under another WSGI server (uWSGI, gunicorn, Apache mod_wsgi) the
``*/api/wsgi.py`` modules are used instead and these options do not
apply: that server's own limits do.
"""

import dataclasses
import os
import socket
import threading
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
from waitress import adjustments
from waitress import wasyncore

from lite_common import private
from lite_common.wsgi import faults
from lite_common.wsgi import guarded

LOG = logging.getLogger(__name__)

#: Connections queued by the kernel until the I/O thread accepts them
#: (capped by net.core.somaxconn).
DEFAULT_BACKLOG = 1024

#: Paths answered by the health check threads.
HEALTH_PATHS = frozenset({'/healthcheck'})


def server_opts() -> list[cfg.Opt]:
    """The API server's options (new objects for each API's group)."""
    return [
        cfg.IntOpt(
            'threads',
            default=16,
            min=1,
            help='Worker threads of the API server: requests run at '
            'most this many at a time; the others wait, received whole, '
            'in a queue.',
        ),
        cfg.IntOpt(
            'backlog',
            default=DEFAULT_BACKLOG,
            min=1,
            help='Connections the kernel queues until the server accepts '
            'them (the listen backlog, capped by net.core.somaxconn).',
        ),
        cfg.IntOpt(
            'max_connections',
            default=1000,
            min=1,
            help='Open client connections the server keeps. Beyond it, the '
            'connection idle the longest (between two requests) is closed '
            'to make room; when none is idle, a new connection gets an '
            'immediate 503 and is closed. Needs a file descriptor limit '
            '(LimitNOFILE) above it.',
        ),
        cfg.IntOpt(
            'client_timeout',
            default=30,
            min=1,
            help='Seconds a client has to send a whole request (request '
            'line, headers and body), counted from its first byte; a '
            'large body gets one more second per [api]min_body_rate '
            'bytes. A client that sends too slowly is disconnected.',
        ),
        cfg.IntOpt(
            'min_body_rate',
            default=65536,
            min=1,
            help='Bytes per second a client must at least send a request '
            'body at (see [api]client_timeout).',
        ),
        cfg.IntOpt(
            'keepalive_timeout',
            default=60,
            min=1,
            help='Seconds a connection may stay silent (no request being '
            'sent, nothing to answer) before the server closes it.',
        ),
        cfg.IntOpt(
            'health_threads',
            default=2,
            min=1,
            help='Threads that answer /healthcheck only, so that a probe '
            'is answered while every worker thread is busy.',
        ),
    ]


@dataclasses.dataclass(frozen=True)
class Settings:
    threads: int = 16
    backlog: int = DEFAULT_BACKLOG
    max_connections: int = 1000
    client_timeout: int = 30
    min_body_rate: int = 65536
    keepalive_timeout: int = 60
    health_threads: int = 2

    @classmethod
    def from_group(cls, group: Any) -> 'Settings':
        """From a registered ``[api]`` group of :func:`server_opts`."""
        return cls(
            **{f.name: getattr(group, f.name) for f in dataclasses.fields(cls)}
        )


class APIServer:
    """The server of one API, started and stopped by a Launcher.

    With ``sock``, it serves on that socket, bound already (e.g. by a
    parent process that needed the address first), instead of binding
    ``host``:``port``.
    """

    def __init__(
        self,
        name: str,
        app: Any,
        host: str,
        port: int,
        settings: Settings = Settings(),
        formatter: faults.ErrorFormatter = faults.plain_error,
        sock: socket.socket | None = None,
    ) -> None:
        self.name = name
        self.settings = settings
        adj = adjustments.Adjustments(
            host=host,
            port=port,
            ident=name,
            threads=settings.threads,
            backlog=settings.backlog,
            connection_limit=settings.max_connections,
            channel_timeout=settings.keepalive_timeout,
            cleanup_interval=1,
            asyncore_use_poll=True,
            expose_tracebacks=False,
            # Proxy headers reach the application as they did before
            # (oslo.middleware decides what to trust).
            clear_untrusted_proxy_headers=False,
        )
        bound: dict[str, Any] = {'sockinfo': adj.listen[0]}
        if sock is not None:
            bound = {
                '_sock': sock,
                'bind_socket': False,
                'sockinfo': (
                    sock.family,
                    sock.type,
                    sock.proto,
                    sock.getsockname(),
                ),
            }
        try:
            self.server = guarded.GuardedServer(
                app,
                name=name,
                client_timeout=settings.client_timeout,
                body_rate=settings.min_body_rate,
                formatter=formatter,
                health_paths=HEALTH_PATHS,
                health_threads=settings.health_threads,
                adj=adj,
                **bound,
            )
        except OSError as exc:
            raise RuntimeError(
                f'{name} cannot listen on {host}:{port}: {exc.strerror or exc}'
            ) from exc
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def bind_addr(self) -> tuple[str, int]:
        return (self.server.effective_host, int(self.server.effective_port))

    def start(self) -> None:
        host, port = self.bind_addr
        LOG.info('%s listening on http://%s:%s', self.name, host, port)
        self._thread = threading.Thread(
            target=self._serve, name=self.name, daemon=True
        )
        self._thread.start()

    def _serve(self) -> None:
        adj = self.server.adj
        while not self._stop.is_set():
            wasyncore.loop(
                timeout=adj.asyncore_loop_timeout,
                map=self.server._map,
                use_poll=True,
                count=1,
            )
        self.server.close_connections()

    def stop(self) -> None:
        """Stop accepting and close every connection; let the requests
        in progress finish (5 s at most); then close the wake-up pipe."""
        self._stop.set()
        self.server.pull_trigger()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.server.task_dispatcher.shutdown(timeout=5)
        self.server.health_dispatcher.shutdown(timeout=5)
        self.server.close_trigger()


def _env_paths(variable: str) -> list[str] | None:
    value = os.environ.get(variable, '').strip()
    return [p.strip() for p in value.split(',') if p.strip()] or None


def configure_from_environment(
    conf: cfg.ConfigOpts, project: str, prog: str, env_prefix: str
) -> None:
    """Parse ``conf`` for an API under a WSGI server (no command line):
    the files in ``<env_prefix>_CONFIG_FILES`` (comma-separated), else
    oslo.config's defaults for ``project``, then the directories in
    ``<env_prefix>_CONFIG_DIRS``; and set up logging. Files are created
    private to the server's user (:mod:`lite_common.private`)."""
    private.restrict_umask()
    conf(
        [],
        project=project,
        prog=prog,
        default_config_files=_env_paths(f'{env_prefix}_CONFIG_FILES'),
        default_config_dirs=_env_paths(f'{env_prefix}_CONFIG_DIRS'),
    )
    logging.setup(conf, project)
