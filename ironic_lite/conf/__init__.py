"""ironic_lite configuration: one module per option group.

Nothing registers at import time: every entry point calls
:func:`register_all` on the configuration object it uses.
"""

from oslo_config import cfg

from ironic_lite.conf import conductor

_MODULES = (conductor,)


def register_all(conf: cfg.ConfigOpts) -> None:
    """Register every ironic_lite option on ``conf`` (idempotent)."""
    for module in _MODULES:
        module.register_opts(conf)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    """Every option by group, for oslo-config-generator."""
    merged: dict[str | None, list[cfg.Opt]] = {}
    for module in _MODULES:
        for group, opts in module.list_opts():
            merged.setdefault(group, []).extend(opts)
    return sorted(merged.items(), key=lambda item: item[0] or '')
