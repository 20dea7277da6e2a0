"""``PATCH /v1/nodes/{node_ident}``: a JSON patch (RFC 6902) on a node.

The patch applies to the node's writable fields only; a path under a
field the conductor owns (states, errors, the lock, timestamps) is a
400, as upstream. Removing a top-level field resets it (``null``, or
``{}`` for the dictionaries); the result is validated like a create
request, and only the fields that changed go to the conductor.
"""

import copy
import re
from typing import Any

import jsonpatch
import jsonpointer
import webob.exc

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.schemas import nodes as schemas
from ironic_lite.api.views import nodes as views
from ironic_lite.common import interfaces

#: Fields only the conductor changes (or the API computes).
INTERNAL = frozenset(
    {
        'uuid',
        'id',
        'power_state',
        'target_power_state',
        'provision_state',
        'target_provision_state',
        'provision_updated_at',
        'last_error',
        'reservation',
        'created_at',
        'updated_at',
        'driver_internal_info',
        'clean_step',
        'console_enabled',
        'conductor',
        'conductor_affinity',
        'fault',
        'links',
        'ports',
        'states',
        'volume',
        'traits',
        'maintenance_reason',
        'deploy_step',
        'service_step',
        'raid_config',
        'target_raid_config',
        'boot_mode',
        'secure_boot',
        'inspection_started_at',
        'inspection_finished_at',
        'health',
        'allocation_uuid',
    }
)
_DICT_FIELDS = frozenset(
    name
    for name, schema in schemas.WRITABLE.items()
    if schema.get('type') == 'object'
)


def _root(path: str) -> str:
    first = path.split('/')[1] if path.count('/') else path
    return first.replace('~1', '/').replace('~0', '~')


def _reading(operation: dict[str, Any]) -> str | None:
    """The pointer an operation reads a value from, if any."""
    return {
        'copy': operation.get('from'),
        'move': operation.get('from'),
        'test': operation['path'],
    }.get(operation['op'])


def _check_secrets(
    document: dict[str, Any], operation: dict[str, Any]
) -> None:
    """A patch may write secrets but never read them: a copy or move
    from a value that holds one (to a field shown in clear), or a test
    against it (an oracle), is a 400. A value holds a secret when the
    API would show it masked."""
    reads = _reading(operation)
    if reads is None:
        return
    shown = {
        name: views.MASKED_FIELDS[name](value)
        if name in views.MASKED_FIELDS
        else value
        for name, value in document.items()
    }
    try:
        real = jsonpointer.resolve_pointer(document, reads)
        masked = jsonpointer.resolve_pointer(shown, reads)
    except (jsonpointer.JsonPointerException, KeyError, IndexError, TypeError):
        return  # the operation itself fails, with its own message
    if real != masked:
        raise webob.exc.HTTPBadRequest(
            explanation=f'The patch operation {operation["op"]!r} cannot '
            f'read {reads}: it is or holds a secret.'
        )


def _check_paths(patch: list[dict[str, Any]]) -> None:
    for operation in patch:
        for key in ('path', 'from'):
            if key not in operation:
                continue
            root = _root(operation[key])
            if root in INTERNAL:
                if root.startswith('maintenance'):
                    hint = (
                        '; use PUT or DELETE '
                        '/v1/nodes/{node_ident}/maintenance'
                    )
                else:
                    hint = ''
                raise webob.exc.HTTPBadRequest(
                    explanation=f"'/{root}' is an internal attribute and "
                    f'can not be updated{hint}'
                )
            if root not in schemas.WRITABLE:
                raise webob.exc.HTTPBadRequest(
                    explanation=f'Adding a new attribute (/{root}) to the '
                    'root of the resource is not allowed'
                )


#: The end of jsonpointer's "member 'x' not found in {...}": the
#: document, which may hold secrets.
_DOCUMENT = re.compile(r' in [\[{].*$', re.S)


def _reason(exc: Exception) -> str:
    """Why an operation does not apply, without the node's values."""
    if isinstance(exc, jsonpatch.JsonPatchTestFailed):
        return 'the value is not the one tested'
    if isinstance(exc, (KeyError, IndexError)):
        return f'{exc} does not exist'
    return _DOCUMENT.sub('', str(exc))


def _apply(
    document: dict[str, Any], patch: list[dict[str, Any]]
) -> dict[str, Any]:
    """``patch`` applied one operation at a time, so that an error
    names the operation that failed (as upstream)."""
    for index, operation in enumerate(patch):
        _check_secrets(document, operation)
        try:
            document = jsonpatch.apply_patch(document, [operation])
        except (
            jsonpatch.JsonPatchException,
            jsonpointer.JsonPointerException,
            KeyError,
            IndexError,
            TypeError,
        ) as exc:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Invalid patch: operation {index} '
                f'({operation["op"]} {operation["path"]}): {_reason(exc)}'
            )
    return document


def patched_values(
    row: dict[str, Any], patch: list[dict[str, Any]]
) -> dict[str, Any]:
    """The fields ``patch`` changes, with their new values.

    :raises webob.exc.HTTPBadRequest: an internal or unknown field, a
        patch that does not apply, or an invalid result.
    """
    _check_paths(patch)
    document = {
        name: copy.deepcopy(row.get(name)) for name in schemas.WRITABLE
    }
    result = _apply(document, patch)
    for name in schemas.WRITABLE:
        if name not in result or (
            result[name] is None and name in _DICT_FIELDS
        ):
            result[name] = {} if name in _DICT_FIELDS else None
    util.validate(schemas.UPDATED, result)
    return {
        name: value for name, value in result.items() if value != row.get(name)
    }


def reset_interfaces(
    req: webob.Request, patch: list[dict[str, Any]], values: dict[str, Any]
) -> None:
    """``?reset_interfaces=true`` (1.45): with a new driver, every
    interface the patch leaves alone goes back to the new hardware
    type's default (None here; the conductor records the default).

    :raises webob.exc.HTTPNotAcceptable: before 1.45.
    :raises webob.exc.HTTPBadRequest: not a boolean, or no driver in the
        patch (upstream's message).
    """
    if 'reset_interfaces' not in req.GET:
        return
    if util.version(req).below(mv.RESET_INTERFACES):
        raise webob.exc.HTTPNotAcceptable(
            explanation="The query parameter 'reset_interfaces' needs "
            f'API version {mv.RESET_INTERFACES} or later; this request '
            f'uses {util.version(req)}.'
        )
    if not util.query_bool(req, 'reset_interfaces'):
        return
    if not any(_root(operation['path']) == 'driver' for operation in patch):
        raise webob.exc.HTTPBadRequest(
            explanation='The reset_interfaces parameter can only be used '
            "when changing the node's driver."
        )
    if 'driver' not in values:
        return
    for kind in interfaces.INTERFACE_TYPES:
        values.setdefault(f'{kind}_interface', None)
