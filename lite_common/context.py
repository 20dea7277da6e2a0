"""Request context shared by the API, the RPC bus and the objects.

The database's transactions keep their state on the context
(oslo.db's enginefacade); a process with a database grafts its
properties on :class:`RequestContext` when it imports
:mod:`lite_common.db`, so that a compute agent, which has none, does
not import oslo.db and SQLAlchemy.
"""

from typing import Any

from oslo_context import context


class RequestContext(context.RequestContext):
    """A request context that knows whether its caller is an admin.

    ``is_admin`` is computed by the API from the policy rule
    ``context_is_admin`` so that handlers never look at role names.
    """

    def to_policy_values(self) -> Any:
        values = super().to_policy_values()
        values['is_admin'] = self.is_admin
        return values

    @classmethod
    def from_dict(cls, values: dict[str, Any], **kwargs: Any) -> Any:
        kwargs.setdefault('is_admin', values.get('is_admin', False))
        return super().from_dict(values, **kwargs)


def get_admin_context() -> RequestContext:
    """A context for the services' own work (periodic tasks, startup)."""
    return RequestContext(is_admin=True, overwrite=False)
