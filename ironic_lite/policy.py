"""The ironic_lite policy enforcer.

The API builds its enforcer from the configuration object it was given
(:func:`make_enforcer`); ironic_lite never reads the global
``cfg.CONF`` for it, because the all-in-one runs nova_lite and
ironic_lite side by side with separate configuration objects.
:func:`get_enforcer` exists for the oslo.policy command line tools
(the ``oslo.policy.enforcer`` entry point), which parse their own
``--config-file`` into ``cfg.CONF`` before they call it.
"""

from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from ironic_lite import policies
from lite_common import policy as lite_policy


def make_enforcer(conf: cfg.ConfigOpts) -> policy.Enforcer:
    """An enforcer with the ironic_lite defaults, reading ``conf``."""
    return lite_policy.make_enforcer(conf, policies.list_rules())


def get_enforcer() -> policy.Enforcer:
    """For the oslo.policy tools only: an enforcer on ``cfg.CONF``.

    ``cfg.CONF`` is looked up when a tool calls this, never at import.
    """
    return make_enforcer(cfg.CONF)


def is_admin(enforcer: policy.Enforcer, context: Any) -> bool:
    """Whether ``context`` passes the ``is_admin`` rule."""
    return bool(enforcer.authorize(
        'is_admin', {}, context.to_policy_values(), do_raise=False))
