"""neutron_lite configuration: one module per option group.

Nothing registers at import time: every entry point calls
:func:`register_all` on the configuration object it uses; neutron_lite
code never reads the global ``cfg.CONF`` (the all-in-one runs it beside
nova_lite and ironic_lite with a configuration object of its own).
"""

from oslo_config import cfg
from oslo_log import log as logging

from lite_common import db as lite_db
from lite_common import db_opts
from lite_common.metrics import opts as metrics_opts
from lite_common.wsgi import auth
from neutron_lite.conf import api
from neutron_lite.conf import default
from neutron_lite.conf import quotas

_MODULES = (default, api, quotas)


def register_all(conf: cfg.ConfigOpts) -> None:
    """Register every neutron_lite option on ``conf`` (idempotent)."""
    for module in _MODULES:
        module.register_opts(conf)
    auth.register_opts(conf)
    metrics_opts.register_opts(conf)
    lite_db.set_defaults(conf)
    try:
        logging.register_options(conf)
    except (cfg.ArgsAlreadyParsedError, cfg.DuplicateOptError):
        pass


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    """Every neutron_lite option by group, for oslo-config-generator."""
    merged: dict[str | None, list[cfg.Opt]] = {}
    for module in (*_MODULES, auth, metrics_opts, db_opts):
        for group, opts in module.list_opts():
            merged.setdefault(group, []).extend(opts)
    return sorted(merged.items(), key=lambda item: item[0] or '')
