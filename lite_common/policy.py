"""oslo.policy enforcement shared by the APIs."""

from collections.abc import Iterable
import time
from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from lite_common.context import RequestContext


class PolicyNotAuthorized(Exception):
    """The caller may not do this; the API turns it into a 403."""

    def __init__(self, action: str) -> None:
        super().__init__(f'Policy does not allow {action} to be performed.')
        self.action = action


class Enforcer(policy.Enforcer):
    """An enforcer that looks for policy file changes once a second.

    oslo.policy looks for the policy file and every policy directory on
    each check (a dozen ``stat`` calls when there is no file, which is
    the default); an edited or new policy file is still picked up
    within :attr:`RELOAD_INTERVAL` seconds.
    """

    RELOAD_INTERVAL = 1.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loaded_at: float | None = None

    def load_rules(self, force_reload: bool = False) -> None:
        now = time.monotonic()
        if (
            not force_reload
            and self._loaded_at is not None
            and now - self._loaded_at < self.RELOAD_INTERVAL
        ):
            return
        super().load_rules(force_reload)
        self._loaded_at = now

    def clear(self) -> None:
        super().clear()
        self._loaded_at = None


def make_enforcer(
    conf: cfg.ConfigOpts,
    rules: Iterable[policy.RuleDefault],
    cls: type[Enforcer] = Enforcer,
) -> policy.Enforcer:
    enforcer = cls(conf)
    enforcer.register_defaults(list(rules))
    return enforcer


def authorize(
    enforcer: policy.Enforcer,
    context: RequestContext,
    action: str,
    target: dict[str, Any] | None = None,
) -> None:
    """Raise :class:`PolicyNotAuthorized` unless ``action`` is allowed."""
    target = target or {
        'project_id': context.project_id,
        'user_id': context.user_id,
    }
    try:
        enforcer.authorize(
            action,
            target,
            context,
            do_raise=True,
            exc=PolicyNotAuthorized,
            action=action,
        )
    except policy.InvalidScope:
        raise PolicyNotAuthorized(action)


def check(
    enforcer: policy.Enforcer,
    context: RequestContext,
    action: str,
    target: dict[str, Any] | None = None,
) -> bool:
    target = target or {
        'project_id': context.project_id,
        'user_id': context.user_id,
    }
    return bool(enforcer.authorize(action, target, context, do_raise=False))
