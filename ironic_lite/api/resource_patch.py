"""JSON patches (RFC 6902) of the resources that are plain documents
(chassis, volume connectors and targets): only some top-level fields
may change, no new one may be added, and an error names the operation
without the document (which may hold secrets)."""

import copy
import re
from typing import Any

import jsonpatch
import jsonpointer
import webob.exc

#: The end of jsonpointer's "member 'x' not found in {...}": the
#: document, which may hold secrets (target properties).
_DOCUMENT = re.compile(r' in [\[{].*$', re.S)


def check_allowed(
    patch: list[dict[str, Any]], allowed: tuple[str, ...]
) -> None:
    # The schema's path pattern admits no "~": upstream's decoding of
    # RFC 6901 escapes from 1.98 cannot apply to these resources.
    for operation in patch:
        if operation['path'].split('/')[1] not in allowed:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Cannot patch {operation["path"]}. Only the '
                f'following can be updated: {", ".join(allowed)}'
            )


def apply_patch(
    document: dict[str, Any], patch: list[dict[str, Any]]
) -> dict[str, Any]:
    """``patch`` applied one operation at a time (an error names the
    operation), never adding a new top-level field."""
    for operation in patch:
        if (
            operation['op'] == 'add'
            and operation['path'].count('/') == 1
            and operation['path'].lstrip('/') not in document
        ):
            raise webob.exc.HTTPBadRequest(
                explanation=f'Adding a new attribute ({operation["path"]}) '
                'to the root of the resource is not allowed'
            )
    document = copy.deepcopy(document)
    for operation in patch:
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
                explanation=f"Couldn't apply patch '{operation}'. Reason: "
                f'{_DOCUMENT.sub("", str(exc))}'
            )
    return document


def patch_values(patch: list[dict[str, Any]], path: str) -> list[Any]:
    """The values ``patch`` adds or replaces at ``path`` (upstream's
    get_patch_values); a 400 for an operation that would set ``path``
    without a value of its own (an add with none, a move or copy to it),
    which the caller could not check."""
    values = []
    for op in patch:
        if op['path'] != path or op['op'] == 'remove':
            continue
        if 'value' not in op:
            raise webob.exc.HTTPBadRequest(
                explanation=f"Couldn't apply patch '{op}'. Reason: "
                f'{path} is set by an add or replace with a value.'
            )
        values.append(op['value'])
    return values
