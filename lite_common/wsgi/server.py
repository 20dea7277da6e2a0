"""Serve a WSGI application with cheroot on a thread of its own.

The listen backlog (:data:`DEFAULT_BACKLOG` unless given) is what lets
a burst of clients wait for a free thread: cheroot's default of 5 makes
the kernel drop the handshakes of the others, whose clients then wait
for retransmissions, time out or see their connection reset.
"""

import os
import threading
from typing import Any

from cheroot import wsgi
from oslo_config import cfg
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

#: Connections queued by the kernel until a thread accepts them (capped
#: by net.core.somaxconn).
DEFAULT_BACKLOG = 1024


class APIServer:
    """A cheroot server that can be started and stopped cleanly."""

    def __init__(self, name: str, app: Any, host: str, port: int,
                 threads: int = 16, backlog: int = DEFAULT_BACKLOG) -> None:
        self.name = name
        self.server = wsgi.Server((host, port), app, numthreads=threads,
                                  server_name=name,
                                  request_queue_size=backlog)
        self._thread: threading.Thread | None = None

    @property
    def bind_addr(self) -> tuple[str, int]:
        return self.server.bind_addr

    def start(self) -> None:
        """Bind (so errors surface here) and serve in the background."""
        try:
            self.server.prepare()
        except OSError as exc:
            host, port = self.server.bind_addr
            raise RuntimeError(
                f'{self.name} cannot listen on {host}:{port}: '
                f'{exc.strerror or exc}') from exc
        host, port = self.server.bind_addr
        LOG.info('%s listening on http://%s:%s', self.name, host, port)
        self._thread = threading.Thread(target=self.server.serve,
                                        name=self.name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.server.stop()
        if self._thread is not None:
            self._thread.join(timeout=10)


def _env_paths(variable: str) -> list[str] | None:
    value = os.environ.get(variable, '').strip()
    return [p.strip() for p in value.split(',') if p.strip()] or None


def configure_from_environment(conf: cfg.ConfigOpts, project: str,
                               prog: str, env_prefix: str) -> None:
    """Parse ``conf`` for an API under a WSGI server (no command line):
    the files in ``<env_prefix>_CONFIG_FILES`` (comma-separated), else
    oslo.config's defaults for ``project``, then the directories in
    ``<env_prefix>_CONFIG_DIRS``; and set up logging."""
    conf([], project=project, prog=prog,
         default_config_files=_env_paths(f'{env_prefix}_CONFIG_FILES'),
         default_config_dirs=_env_paths(f'{env_prefix}_CONFIG_DIRS'))
    logging.setup(conf, project)
