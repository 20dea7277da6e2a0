"""The neutron_lite policy enforcer, built from the configuration object
the API was given (:func:`make_enforcer`); :func:`get_enforcer` is for
the oslo.policy command line tools only."""

from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from lite_common import policy as lite_policy
from lite_common.context import RequestContext
from neutron_lite import exception
from neutron_lite import policies


def make_enforcer(conf: cfg.ConfigOpts) -> policy.Enforcer:
    return lite_policy.make_enforcer(conf, policies.list_rules())


def get_enforcer() -> policy.Enforcer:
    """For the oslo.policy tools: an enforcer on ``cfg.CONF``."""
    return make_enforcer(cfg.CONF)


def is_admin(enforcer: policy.Enforcer, context: RequestContext) -> bool:
    return bool(
        enforcer.authorize(
            'context_is_admin',
            {},
            context.to_policy_values(),
            do_raise=False,
        )
    )


def allowed(
    enforcer: policy.Enforcer,
    context: RequestContext,
    action: str,
    target: dict[str, Any],
) -> bool:
    return bool(
        enforcer.authorize(
            action, target, context.to_policy_values(), do_raise=False
        )
    )


def authorize(
    enforcer: policy.Enforcer,
    context: RequestContext,
    action: str,
    target: dict[str, Any],
) -> None:
    """:raises PolicyNotAuthorized: (Neutron's 403)."""
    if not allowed(enforcer, context, action, target):
        raise exception.PolicyNotAuthorized(rule=f'rule:{action}')
