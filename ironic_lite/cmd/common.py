"""Start-up shared by the ironic_lite daemons: config, logging, errors."""

from collections.abc import Callable
import sys
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite import conf as ironic_conf
from ironic_lite import exception
from ironic_lite import metrics as ironic_metrics
from ironic_lite.db import api as db_api
from lite_common import daemon
from lite_common import private
from lite_common import service as lite_service
from lite_common.metrics import db_pool
from lite_common.metrics import listener

PROJECT = 'ironic-lite'


def load_config(
    argv: list[str], name: str, conf: cfg.ConfigOpts | None = None
) -> cfg.ConfigOpts:
    """Register options, parse the command line and files, set up logs.

    The daemons use the global ``cfg.CONF`` (oslo.messaging's drivers
    read it); everything below receives ``conf`` explicitly.
    """
    private.restrict_umask()
    conf = conf if conf is not None else cfg.CONF
    ironic_conf.register_all(conf)
    try:
        conf(argv, project=PROJECT, prog=name)
    except cfg.Error as exc:
        sys.exit(f'{name}: invalid configuration: {exc}')
    logging.setup(conf, PROJECT)
    private.tighten(private.service_paths(conf))
    return conf


#: Refusals that a restart cannot fix (exit 78: systemd does not restart):
#: the enabled drivers cannot be loaded as configured.
_DRIVER_ERRORS = (
    exception.DuplicateCleanStepPriority,
    exception.InvalidParameterValue,
)


def _classify(name: str, exc: Exception) -> tuple[str, bool] | None:
    if isinstance(exc, _DRIVER_ERRORS):
        return f'{name} refuses to start: {exc}', True
    if isinstance(exc, exception.ConductorHostInUse):
        # Exit 1: a restart succeeds once the other process is gone.
        return f'{name} refuses to start: {exc}', False
    message = daemon.common_failure(
        name, exc, (exception.ConfigError,), 'ironic-lite-dbsync'
    )
    return None if message is None else (message, False)


def run_daemon(name: str, body: Callable[[], Any]) -> int:
    """Run ``body``; a known failure is one clear log line and exit 1,
    or 78 (:data:`lite_common.daemon.EXIT_REFUSED`) for a refusal."""
    return daemon.run(body, lambda exc: _classify(name, exc))


def serve(
    name: str,
    make_service: Callable[
        [cfg.ConfigOpts, lite_service.Launcher], lite_service.Runnable
    ],
    metrics_listener: bool = False,
) -> int:
    """The daemon ``name``: load the configuration from the command line,
    check that the database is reachable, then run the service
    ``make_service(conf, launcher)`` until SIGTERM or SIGINT, or until
    it asks the launcher to stop (under :func:`run_daemon`, so that its
    failures are reported there too)."""
    conf = load_config(sys.argv[1:], name)

    def body() -> int:
        db_api.configure(conf)
        db_api.get_engine().connect().close()
        launcher = lite_service.Launcher()
        launcher.add(make_service(conf, launcher))
        metrics = listener.listener(conf) if metrics_listener else None
        if metrics is not None:
            ironic_metrics.register_process()
            db_pool.track('ironic_lite', db_api.get_engine)
            launcher.add(metrics)
        return launcher.run()

    return run_daemon(name, body)
