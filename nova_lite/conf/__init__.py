"""nova_lite configuration: one module per option group.

Nothing registers at import time: every entry point calls
:func:`register_all` on the configuration object it uses.
"""

from oslo_config import cfg
from oslo_log import log as logging

from lite_common import rpc
from lite_common.metrics import opts as metrics_opts
from lite_common.wsgi import auth
from nova_lite.conf import api
from nova_lite.conf import availability_zone
from nova_lite.conf import compute
from nova_lite.conf import conductor
from nova_lite.conf import default
from nova_lite.conf import glance
from nova_lite.conf import image_store
from nova_lite.conf import ironic
from nova_lite.conf import quota
from nova_lite.conf import scheduler
from nova_lite.conf import workarounds

CONF = cfg.CONF
_MODULES = (
    default,
    availability_zone,
    api,
    compute,
    conductor,
    glance,
    image_store,
    ironic,
    quota,
    scheduler,
    workarounds,
)


def register_all(conf: cfg.ConfigOpts, database: bool = True) -> None:
    """Register every nova_lite option on ``conf`` (idempotent); the
    ``[database]`` options (oslo.db's and ours) unless ``database`` is
    false: a compute agent has no database, and does not import oslo.db
    and SQLAlchemy for options it never reads."""
    for module in _MODULES:
        module.register_opts(conf)
    auth.register_opts(conf)
    metrics_opts.register_opts(conf)
    rpc.register_opts(conf, 'nova_lite')
    rpc.allow_remote_exceptions('nova_lite.exception')
    if database:
        from lite_common import db as lite_db

        lite_db.set_defaults(conf)
    try:
        logging.register_options(conf)
    except cfg.ArgsAlreadyParsedError:
        pass
    except cfg.DuplicateOptError:
        pass
