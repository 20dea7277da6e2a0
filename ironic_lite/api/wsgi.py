"""ironic-lite-api as a WSGI application, for uWSGI, gunicorn or mod_wsgi.

    gunicorn --threads 16 'ironic_lite.api.wsgi:application'
    uwsgi --http 127.0.0.1:6385 --module ironic_lite.api.wsgi:application

Importing this module builds the application, as WSGI servers expect.
The configuration files are those in ``IRONIC_LITE_CONFIG_FILES`` (a
comma-separated list), else oslo.config's defaults for the project
``ironic-lite`` (``/etc/ironic-lite/ironic-lite.conf``, ...); the
directories in ``IRONIC_LITE_CONFIG_DIRS`` are read after them.
"""

from typing import Any

from lite_common import backend

backend.select_threading()

from oslo_config import cfg  # noqa: E402

from ironic_lite import conf as ironic_conf  # noqa: E402
from ironic_lite.api import app as api_app  # noqa: E402
from ironic_lite.db import api as db_api  # noqa: E402
from lite_common.wsgi import server  # noqa: E402

PROJECT = 'ironic-lite'


def init_application(conf: cfg.ConfigOpts | None = None) -> Any:
    """Load the configuration and build the application.

    The process-wide ``cfg.CONF`` by default: oslo.messaging's drivers
    read options from it in a process of its own.
    """
    conf = cfg.CONF if conf is None else conf
    ironic_conf.register_all(conf)
    server.configure_from_environment(
        conf, PROJECT, 'ironic-lite-api-wsgi', 'IRONIC_LITE'
    )
    db_api.configure(conf)
    return api_app.load_app(conf)


application = init_application()
