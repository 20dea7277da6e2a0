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
from oslo_context import context
from oslo_policy import policy

from ironic_lite import policies
from lite_common import policy as lite_policy
from lite_common.context import RequestContext


class Enforcer(lite_policy.Enforcer):
    """Adds what the ``service_role`` rule reads to the credentials:
    ``project_name``, and ``config.service_project_name`` when
    ``[DEFAULT]rbac_service_role_elevated_access`` is set (absent, the
    rule matches nobody)."""

    def enforce(
        self, rule: Any, target: Any, creds: Any, *args: Any, **kwargs: Any
    ) -> Any:
        if isinstance(creds, context.RequestContext):
            # With the project's name, which service_role compares (as
            # upstream's context gives it).
            creds = dict(
                creds.to_policy_values(), project_name=creds.project_name
            )
        # The oslo.policy tools' configuration may not have the options.
        project = getattr(self.conf, 'rbac_service_project_name', None)
        if (
            isinstance(creds, dict)
            and project
            and getattr(self.conf, 'rbac_service_role_elevated_access', False)
        ):
            # oslo.policy fills the right side of a check from the
            # target: the name goes there too (upstream puts it in the
            # credentials only, where the rule does not find it).
            extra = {'config.service_project_name': project}
            creds = dict(creds, **extra)
            if isinstance(target, dict):
                target = dict(target, **extra)
        return super().enforce(rule, target, creds, *args, **kwargs)


def make_enforcer(conf: cfg.ConfigOpts) -> policy.Enforcer:
    """An enforcer with the ironic_lite defaults, reading ``conf``."""
    return lite_policy.make_enforcer(conf, policies.list_rules(), Enforcer)


def get_enforcer() -> policy.Enforcer:
    """For the oslo.policy tools only: an enforcer on ``cfg.CONF``.

    ``cfg.CONF`` is looked up when a tool calls this, never at import.
    """
    return make_enforcer(cfg.CONF)


def is_admin(enforcer: policy.Enforcer, context: RequestContext) -> bool:
    """Whether ``context`` passes the ``is_admin`` rule."""
    return bool(
        enforcer.authorize(
            'is_admin', {}, context.to_policy_values(), do_raise=False
        )
    )
