"""ironic_lite configuration: one module per option group.

Nothing registers at import time: every entry point calls
:func:`register_all` on the configuration object it uses. ironic_lite
code never reads the global ``cfg.CONF``: the all-in-one runs it with a
configuration object of its own beside nova_lite's.
"""

from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite.conf import agent
from ironic_lite.conf import api
from ironic_lite.conf import conductor
from ironic_lite.conf import default
from ironic_lite.conf import deploy_images
from ironic_lite.conf import glance
from ironic_lite.conf import inspection_rules
from ironic_lite.conf import ipmi
from ironic_lite.conf import neutron
from ironic_lite.conf import redfish
from lite_common import db as lite_db
from lite_common import db_opts
from lite_common import rpc
from lite_common.metrics import opts as metrics_opts
from lite_common.wsgi import auth

_MODULES = (
    default,
    agent,
    glance,
    api,
    conductor,
    deploy_images,
    inspection_rules,
    ipmi,
    neutron,
    redfish,
)


def register_all(conf: cfg.ConfigOpts) -> None:
    """Register every ironic_lite option on ``conf`` (idempotent)."""
    for module in _MODULES:
        module.register_opts(conf)
    auth.register_opts(conf)
    metrics_opts.register_opts(conf)
    rpc.register_opts(conf, 'ironic_lite')
    rpc.allow_remote_exceptions('ironic_lite.exception')
    lite_db.set_defaults(conf)
    try:
        logging.register_options(conf)
    except (cfg.ArgsAlreadyParsedError, cfg.DuplicateOptError):
        pass


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    """Every ironic_lite option by group, for oslo-config-generator."""
    merged: dict[str | None, list[cfg.Opt]] = {}
    for module in (*_MODULES, auth, metrics_opts, db_opts):
        for group, opts in module.list_opts():
            merged.setdefault(group, []).extend(opts)
    return sorted(merged.items(), key=lambda item: item[0] or '')
