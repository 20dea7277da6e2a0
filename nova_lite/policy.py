"""The nova_lite policy enforcer."""

from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from lite_common import policy as lite_policy
from lite_common.context import RequestContext
from nova_lite import policies

_ENFORCER: policy.Enforcer | None = None


def get_enforcer() -> policy.Enforcer:
    """The process enforcer (also the oslo.policy tools' entry point)."""
    global _ENFORCER
    if _ENFORCER is None:
        _ENFORCER = lite_policy.make_enforcer(cfg.CONF, policies.list_rules())
    return _ENFORCER


def reset() -> None:
    global _ENFORCER
    _ENFORCER = None


def authorize(
    context: RequestContext, action: str, target: dict[str, Any] | None = None
) -> None:
    lite_policy.authorize(get_enforcer(), context, action, target)


def check(
    context: RequestContext, action: str, target: dict[str, Any] | None = None
) -> bool:
    return lite_policy.check(get_enforcer(), context, action, target)


def is_admin(context: RequestContext) -> bool:
    return bool(
        get_enforcer().authorize(
            'context_is_admin', {}, context.to_policy_values(), do_raise=False
        )
    )
