"""The metrics listener of a conductor or compute agent.

A small HTTP server (prometheus-client's) on
``[metrics]listen_host``:``[metrics]listen_port``, started and stopped
by the service launcher. Off when the port is 0.
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
import prometheus_client

from lite_common import metrics

LOG = logging.getLogger(__name__)
STOP_TIMEOUT = 5.0


class Listener:
    """A :class:`lite_common.service.Runnable` serving the registry."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._server: Any = None
        self._thread: Any = None

    def start(self) -> None:
        self._server, self._thread = prometheus_client.start_http_server(
            self.port, addr=self.host, registry=metrics.REGISTRY
        )
        self.port = self._server.server_port
        LOG.info(
            'Metrics served on http://%s:%s/metrics', self.host, self.port
        )

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=STOP_TIMEOUT)
        self._server = None


def listener(conf: cfg.ConfigOpts) -> Listener | None:
    """The listener ``[metrics]`` asks for, or None."""
    if not conf.metrics.enabled or not conf.metrics.listen_port:
        return None
    return Listener(conf.metrics.listen_host, conf.metrics.listen_port)
