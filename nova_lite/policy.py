"""The nova_lite policy enforcer: one per application, made from the
configuration it was loaded with (:class:`nova_lite.api.app.Deps`).

:func:`get_enforcer` is for the oslo.policy tools only (they load
``--config-file`` into ``cfg.CONF`` before they call it).
"""

from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from lite_common import policy as lite_policy
from lite_common.context import RequestContext
from nova_lite import policies


def make_enforcer(conf: cfg.ConfigOpts) -> policy.Enforcer:
    return lite_policy.make_enforcer(conf, policies.list_rules())


def get_enforcer() -> policy.Enforcer:
    """For the oslo.policy tools only: an enforcer on ``cfg.CONF``,
    looked up when a tool calls this, never at import."""
    return make_enforcer(cfg.CONF)


def authorize(
    enforcer: policy.Enforcer,
    context: RequestContext,
    action: str,
    target: dict[str, Any] | None = None,
) -> None:
    lite_policy.authorize(enforcer, context, action, target)


def check(
    enforcer: policy.Enforcer,
    context: RequestContext,
    action: str,
    target: dict[str, Any] | None = None,
) -> bool:
    return lite_policy.check(enforcer, context, action, target)


def is_admin(enforcer: policy.Enforcer, context: RequestContext) -> bool:
    return bool(
        enforcer.authorize(
            'context_is_admin', {}, context.to_policy_values(), do_raise=False
        )
    )
