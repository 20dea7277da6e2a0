"""nova-lite-api as a WSGI application, for uWSGI, gunicorn or mod_wsgi.

    gunicorn --threads 16 'nova_lite.api.wsgi:application'
    uwsgi --http 127.0.0.1:8774 --module nova_lite.api.wsgi:application

Importing this module builds the application, as WSGI servers expect.
The configuration files are those in ``NOVA_LITE_CONFIG_FILES`` (a
comma-separated list), else oslo.config's defaults for the project
``nova-lite`` (``/etc/nova-lite/nova-lite.conf``, ...); the directories
in ``NOVA_LITE_CONFIG_DIRS`` are read after them.
"""

from typing import Any

from lite_common import backend

backend.select_threading()

from oslo_config import cfg  # noqa: E402

from lite_common.wsgi import server  # noqa: E402
from nova_lite import conf as nova_conf  # noqa: E402
from nova_lite.api import app as api_app  # noqa: E402
from nova_lite.db import api as db_api  # noqa: E402

PROJECT = 'nova-lite'


def init_application(conf: cfg.ConfigOpts = cfg.CONF) -> Any:
    """Load the configuration and build the application."""
    nova_conf.register_all(conf)
    server.configure_from_environment(
        conf, PROJECT, 'nova-lite-api-wsgi', 'NOVA_LITE'
    )
    db_api.configure(conf)
    return api_app.load_app(conf)


application = init_application()
