"""oslo.policy enforcement shared by the APIs."""

from collections.abc import Iterable
from typing import Any

from oslo_config import cfg
from oslo_policy import policy


class PolicyNotAuthorized(Exception):
    """The caller may not do this; the API turns it into a 403."""

    def __init__(self, action: str) -> None:
        super().__init__(f'Policy does not allow {action} to be performed.')
        self.action = action


def make_enforcer(conf: cfg.ConfigOpts,
                  rules: Iterable[policy.RuleDefault]) -> policy.Enforcer:
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(list(rules))
    return enforcer


def authorize(enforcer: policy.Enforcer, context: Any, action: str,
              target: dict[str, Any] | None = None) -> None:
    """Raise :class:`PolicyNotAuthorized` unless ``action`` is allowed."""
    target = target or {'project_id': context.project_id,
                        'user_id': context.user_id}
    try:
        enforcer.authorize(action, target, context, do_raise=True,
                           exc=PolicyNotAuthorized, action=action)
    except policy.InvalidScope:
        raise PolicyNotAuthorized(action)


def check(enforcer: policy.Enforcer, context: Any, action: str,
          target: dict[str, Any] | None = None) -> bool:
    target = target or {'project_id': context.project_id,
                        'user_id': context.user_id}
    return bool(enforcer.authorize(action, target, context, do_raise=False))
