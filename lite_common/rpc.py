"""oslo.messaging setup: transport, serializer, clients and servers.

The transport URL comes from ``[DEFAULT]transport_url``: RabbitMQ in a
deployment (oslo.messaging's default when it is unset), ``inproc://``
(:mod:`lite_common.inproc_bus`) for the all-in-one and the in-process
tests.
"""

from collections.abc import Callable
from typing import Any
from typing import TypeVar
from typing import cast

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher
from oslo_versionedobjects import base as ovo_base

from lite_common import context as lite_context
from lite_common import db_retry
from lite_common.metrics import rpc_client

INPROC_URL = 'inproc://'
_TRANSPORTS: dict[str | None, Any] = {}
#: Modules whose exceptions cross RPC as themselves; lite_common's own
#: (DatabaseUnavailable: a conductor that cannot reach the database
#: answers the API with it, and the API answers 503).
_ALLOWED_EXMODS: list[str] = ['lite_common.exception']


_F = TypeVar('_F', bound=Callable[..., Any])


def expected_exceptions(
    *exceptions: type[BaseException],
) -> Callable[[_F], _F]:
    """oslo.messaging's ``expected_exceptions`` with its signature
    kept: an endpoint method raising one of ``exceptions`` is a refusal
    the caller handles, logged without a traceback."""
    decorate = messaging.expected_exceptions(*exceptions)
    return cast(Callable[[_F], _F], decorate)


def allow_remote_exceptions(module: str) -> None:
    """Exceptions of ``module`` raised by an RPC server are re-raised
    as themselves (not RemoteError) in the caller."""
    if module not in _ALLOWED_EXMODS:
        _ALLOWED_EXMODS.append(module)


#: The seconds an RPC call's server may wait for the database
#: (:func:`lite_common.db_retry.call_patience`), in the serialized
#: context of a call.
DB_PATIENCE_KEY = 'stacklite_db_patience'


class RequestContextSerializer(messaging.Serializer):
    """Carries the request context and versioned objects over RPC (and
    the database patience of a call, see :data:`DB_PATIENCE_KEY`)."""

    def __init__(self, base: messaging.Serializer | None = None) -> None:
        self._base = base

    def serialize_entity(self, ctxt: Any, entity: Any) -> Any:
        if self._base is None:
            return entity
        return self._base.serialize_entity(ctxt, entity)

    def deserialize_entity(self, ctxt: Any, entity: Any) -> Any:
        if self._base is None:
            return entity
        return self._base.deserialize_entity(ctxt, entity)

    def serialize_context(self, ctxt: Any) -> dict[str, Any]:
        values: dict[str, Any] = ctxt.to_dict()
        patience = db_retry.call_patience()
        if patience is not None:
            values[DB_PATIENCE_KEY] = patience
        return values

    def deserialize_context(self, ctxt: dict[str, Any]) -> Any:
        values = dict(ctxt)
        patience = values.pop(DB_PATIENCE_KEY, None)
        context = lite_context.RequestContext.from_dict(values)
        # Read by lite_common.service for the endpoint's own thread only.
        context.db_patience = patience
        return context


def register_opts(conf: cfg.ConfigOpts, control_exchange: str) -> None:
    """Register oslo.messaging's options (transport_url, ...) up front,
    so that configuration can be read before any transport exists."""
    from oslo_messaging import opts
    from oslo_messaging._metrics import client as metrics_client
    from oslo_messaging._tracing import client as tracing_client

    for group, group_opts in opts.list_opts():
        conf.register_opts(group_opts, group=group)
    # Not messaging.set_transport_defaults(): it changes the default of
    # the option objects the transport registers on every ConfigOpts, and
    # two services in one process (the all-in-one) would then register
    # different "control_exchange" options on each other's configuration.
    conf.set_default('control_exchange', control_exchange)
    # The RPC client reads its tracing and metrics options from the
    # transport's configuration but registers them on cfg.CONF only (and
    # they are not in list_opts): a private ConfigOpts (the all-in-one's
    # ironic_lite half, the tests) needs them too.
    conf.register_opts(
        tracing_client.oslo_messaging_tracing, group='oslo_messaging_tracing'
    )
    conf.register_opts(
        metrics_client.oslo_messaging_metrics, group='oslo_messaging_metrics'
    )


def get_transport(conf: cfg.ConfigOpts) -> Any:
    """One transport per URL and process (the in-process bus is shared)."""
    url = conf.transport_url
    if url not in _TRANSPORTS:
        _TRANSPORTS[url] = messaging.get_rpc_transport(
            conf, url=url, allowed_remote_exmods=list(_ALLOWED_EXMODS)
        )
    return _TRANSPORTS[url]


def cleanup() -> None:
    """Close every transport this process opened."""
    for transport in _TRANSPORTS.values():
        transport.cleanup()
    _TRANSPORTS.clear()


def get_serializer(obj_serializer: type | None = None) -> Any:
    base = (obj_serializer or ovo_base.VersionedObjectSerializer)()
    return RequestContextSerializer(base)


def get_client(
    conf: cfg.ConfigOpts,
    target: messaging.Target,
    version_cap: str | None = None,
    serializer: Any = None,
    timeout: int | None = None,
    expected: rpc_client.Expected = (),
) -> Any:
    """An RPC client whose calls are timed (see
    :mod:`lite_common.metrics.rpc_client`); ``expected``: the exception
    classes the server declares as expected."""
    client = messaging.get_rpc_client(
        get_transport(conf),
        target,
        version_cap=version_cap,
        serializer=serializer or get_serializer(),
        timeout=timeout,
    )
    return rpc_client.TimedClient(client, target.topic, expected)


def get_server(
    conf: cfg.ConfigOpts,
    target: messaging.Target,
    endpoints: list[Any],
    serializer: Any = None,
) -> Any:
    access_policy = dispatcher.DefaultRPCAccessPolicy
    return messaging.get_rpc_server(
        get_transport(conf),
        target,
        endpoints,
        executor='threading',
        serializer=serializer or get_serializer(),
        access_policy=access_policy,
    )
