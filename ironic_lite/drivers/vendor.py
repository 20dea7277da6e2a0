"""Vendor passthru: methods of a vendor interface that the API calls by
name (``/v1/nodes/{node}/vendor_passthru?method=...`` and
``/v1/drivers/{driver}/vendor_passthru?method=...``, API 1.1).

A method is declared with :func:`passthru` (it acts on a node:
``method(self, task, http_method, **args)``) or :func:`driver_passthru`
(no node: ``method(self, context, http_method, **args)``). Its declared
keyword arguments are the only ones a request may send: anything else
is a 400 naming it, before the method runs. An ``async_call`` method
runs on a conductor worker after the API has answered 202 (with the node
lock, or shared when ``require_exclusive_lock`` is False); the others
run before the answer, which carries what they return (200).
"""

from collections.abc import Callable
import dataclasses
import inspect
from typing import Any
from typing import TypeVar

from ironic_lite import exception

F = TypeVar('F', bound=Callable[..., Any])
HTTP_METHODS = ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')


@dataclasses.dataclass(frozen=True)
class Passthru:
    """The decorator's arguments, kept on the method."""

    http_methods: tuple[str, ...]
    async_call: bool
    description: str
    attach: bool
    require_exclusive_lock: bool
    on_node: bool

    def route(self) -> dict[str, Any]:
        """As ``GET .../vendor_passthru/methods`` shows it (upstream's
        keys)."""
        return {
            'http_methods': list(self.http_methods),
            'async': self.async_call,
            'description': self.description,
            'attach': self.attach,
            'require_exclusive_lock': self.require_exclusive_lock,
        }


def _decorator(
    http_methods: list[str],
    async_call: bool,
    description: str,
    attach: bool,
    require_exclusive_lock: bool,
    on_node: bool,
) -> Callable[[F], F]:
    unknown = set(http_methods) - set(HTTP_METHODS)
    if not http_methods or unknown:
        raise exception.InvalidParameterValue(
            err=f'passthru needs HTTP methods among {HTTP_METHODS}, not '
            f'{http_methods!r}'
        )

    def decorate(func: F) -> F:
        func._passthru = Passthru(  # type: ignore[attr-defined]
            tuple(http_methods),
            async_call,
            description,
            attach,
            require_exclusive_lock,
            on_node,
        )
        return func

    return decorate


def passthru(
    http_methods: list[str],
    async_call: bool = True,
    description: str = '',
    attach: bool = False,
    require_exclusive_lock: bool = True,
) -> Callable[[F], F]:
    """Declare a node's vendor method (upstream's arguments)."""
    return _decorator(
        http_methods,
        async_call,
        description,
        attach,
        require_exclusive_lock,
        on_node=True,
    )


def driver_passthru(
    http_methods: list[str],
    async_call: bool = True,
    description: str = '',
    attach: bool = False,
) -> Callable[[F], F]:
    """Declare a driver's vendor method (no node, no lock)."""
    return _decorator(
        http_methods, async_call, description, attach, False, on_node=False
    )


def routes(interface: Any, on_node: bool) -> dict[str, Passthru]:
    """The declared methods of ``interface``: name -> declaration."""
    found = {}
    for name in sorted(dir(type(interface))):
        info = getattr(getattr(type(interface), name, None), '_passthru', None)
        if isinstance(info, Passthru) and info.on_node == on_node:
            found[name] = info
    return found


def find(
    interface: Any,
    method: str,
    http_method: str,
    args: dict[str, Any],
    on_node: bool,
) -> Passthru:
    """The declaration of ``method``, once the request may call it.

    :raises InvalidParameterValue: no such method, another HTTP method,
        or arguments it does not take (or lacks).
    """
    info = routes(interface, on_node).get(method)
    if info is None:
        raise exception.InvalidParameterValue(
            err=f'No handler for method {method}'
        )
    if http_method not in info.http_methods:
        raise exception.InvalidParameterValue(
            err=f'The method {method} does not support HTTP {http_method}'
        )
    signature = inspect.signature(getattr(interface, method))
    params = list(signature.parameters.values())[2:]  # task, http_method
    if not any(p.kind is p.VAR_KEYWORD for p in params):
        accepted = {p.name for p in params}
        unknown = sorted(set(args) - accepted)
        if unknown:
            raise exception.InvalidParameterValue(
                err=f'Method {method} does not take the argument(s) '
                f'{", ".join(unknown)}; it takes: '
                f'{", ".join(sorted(accepted)) or "none"}'
            )
    missing = sorted(
        p.name
        for p in params
        if p.default is p.empty
        and p.name not in args
        and p.kind is p.POSITIONAL_OR_KEYWORD
    )
    if missing:
        raise exception.InvalidParameterValue(
            err=f'Parameter {missing[0]!r} not passed to method {method!r}.'
        )
    return info
