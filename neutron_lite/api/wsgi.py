"""neutron-lite-server's API as a WSGI application, for uWSGI, gunicorn
or mod_wsgi.

    gunicorn --threads 16 'neutron_lite.api.wsgi:application'

Importing this module builds the application, as WSGI servers expect.
The configuration files are those in ``NEUTRON_LITE_CONFIG_FILES`` (a
comma-separated list), else oslo.config's defaults for the project
``neutron-lite`` (``/etc/neutron-lite/neutron-lite.conf``, ...); the
directories in ``NEUTRON_LITE_CONFIG_DIRS`` are read after them.
"""

from typing import Any

from lite_common import backend

backend.select_threading()

from oslo_config import cfg  # noqa: E402

from lite_common.wsgi import server  # noqa: E402
from neutron_lite import conf as neutron_conf  # noqa: E402
from neutron_lite.api import app as api_app  # noqa: E402
from neutron_lite.db import api as db_api  # noqa: E402

PROJECT = 'neutron-lite'


def init_application(conf: cfg.ConfigOpts | None = None) -> Any:
    """Load the configuration and build the application."""
    conf = cfg.CONF if conf is None else conf
    neutron_conf.register_all(conf)
    server.configure_from_environment(
        conf, PROJECT, 'neutron-lite-api-wsgi', 'NEUTRON_LITE'
    )
    db_api.configure(conf)
    return api_app.load_app(conf)


application = init_application()
