"""ironic-lite-api as a WSGI application, for uWSGI, gunicorn or mod_wsgi.

    gunicorn --threads 16 'ironic_lite.api.wsgi:application'
    uwsgi --http 127.0.0.1:6385 --module ironic_lite.api.wsgi:application

Importing this module builds the application, as WSGI servers expect.
The configuration files are those in ``IRONIC_LITE_CONFIG_FILES`` (a
comma-separated list), else oslo.config's defaults for the project
``ironic-lite`` (``/etc/ironic-lite/ironic-lite.conf``, ...); the
directories in ``IRONIC_LITE_CONFIG_DIRS`` are read after them.
"""

import os
from typing import Any

from lite_common import backend

backend.select_threading()

from oslo_config import cfg  # noqa: E402
from oslo_log import log as logging  # noqa: E402

from ironic_lite import conf as ironic_conf  # noqa: E402
from ironic_lite.api import app as api_app  # noqa: E402
from ironic_lite.db import api as db_api  # noqa: E402

PROJECT = 'ironic-lite'


def _paths(variable: str) -> list[str] | None:
    value = os.environ.get(variable, '').strip()
    return [p.strip() for p in value.split(',') if p.strip()] or None


def init_application(conf: cfg.ConfigOpts | None = None) -> Any:
    """Load the configuration and build the application.

    The process-wide ``cfg.CONF`` by default: oslo.messaging's drivers
    read options from it in a process of its own.
    """
    conf = cfg.CONF if conf is None else conf
    ironic_conf.register_all(conf)
    conf([], project=PROJECT, prog='ironic-lite-api-wsgi',
         default_config_files=_paths('IRONIC_LITE_CONFIG_FILES'),
         default_config_dirs=_paths('IRONIC_LITE_CONFIG_DIRS'))
    logging.setup(conf, PROJECT)
    db_api.configure(conf)
    return api_app.load_app(conf)


application = init_application()
