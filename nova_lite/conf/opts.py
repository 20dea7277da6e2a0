"""Entry points for oslo-config-generator."""

from oslo_config import cfg

from lite_common import db_opts
from lite_common.metrics import opts as metrics_opts
from lite_common.wsgi import auth
from nova_lite.conf import _MODULES


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    merged: dict[str | None, list[cfg.Opt]] = {}
    for module in _MODULES:
        for group, opts in module.list_opts():
            merged.setdefault(group, []).extend(opts)
    for group, opts in (
        auth.list_opts() + metrics_opts.list_opts() + db_opts.list_opts()
    ):
        merged.setdefault(group, []).extend(opts)
    return sorted(merged.items(), key=lambda item: item[0] or '')
