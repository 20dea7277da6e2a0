"""Request context shared by the API, the RPC bus and the objects."""

from typing import Any

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
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
