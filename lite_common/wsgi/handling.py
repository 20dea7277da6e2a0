"""What every API handler of both services uses: the request's context
and microversion, its validated JSON body, boolean query parameters."""

from typing import Any

import jsonschema
import webob
import webob.exc

from lite_common import context as lite_context
from lite_common.wsgi import auth
from lite_common.wsgi import json_body
from lite_common.wsgi import microversion

#: One validator per schema (schemas are module constants), instead of
#: one built for every request.
_VALIDATORS: dict[int, tuple[dict[str, Any], Any]] = {}
_TRUE = frozenset({'1', 'true', 't', 'yes', 'y', 'on'})
_FALSE = frozenset({'0', 'false', 'f', 'no', 'n', 'off'})


def context(req: webob.Request) -> lite_context.RequestContext:
    return auth.get_context(req)


def version(req: webob.Request) -> microversion.APIVersion:
    return microversion.get_version(req)


def _validator(schema: dict[str, Any]) -> Any:
    entry = _VALIDATORS.get(id(schema))
    if entry is None or entry[0] is not schema:
        entry = (
            schema,
            jsonschema.Draft4Validator(
                schema, format_checker=jsonschema.FormatChecker()
            ),
        )
        _VALIDATORS[id(schema)] = entry
    return entry[1]


def _path(error: jsonschema.ValidationError) -> str:
    return '/'.join(str(p) for p in error.absolute_path)


#: How much of an invalid value an error message repeats.
ECHO_LIMIT = 100


def short_repr(value: Any) -> str:
    """``repr(value)``, cut to :data:`ECHO_LIMIT` characters (a 1 MB
    description must not come back as a 2 MB error)."""
    text = repr(value)
    if len(text) <= ECHO_LIMIT:
        return text
    return f'{text[:ECHO_LIMIT]}... ({len(text)} characters)'


def validate(schema: dict[str, Any], body: Any) -> None:
    """A 400 naming the field and the reason when ``body`` is invalid."""
    error = jsonschema.exceptions.best_match(
        _validator(schema).iter_errors(body)
    )
    if error is None:
        return
    shown = short_repr(error.instance)
    reason = error.message.replace(repr(error.instance), shown)
    if error.absolute_path:
        message = (
            f'Invalid input for field/attribute {_path(error)}. '
            f'Value: {shown}. {reason}'
        )
    else:
        message = f'Invalid input: {reason}'
    raise webob.exc.HTTPBadRequest(explanation=message)


def read_body(
    req: webob.Request, schema: dict[str, Any], optional: bool = False
) -> Any:
    """The JSON body (see :mod:`lite_common.wsgi.json_body`), validated
    against ``schema``; ``optional``: an empty body is ``{}``."""
    body = json_body.read(req, optional=optional)
    validate(schema, body)
    return body


def query_bool(req: webob.Request, name: str) -> bool | None:
    """A boolean query parameter (None when absent); a 400 otherwise."""
    value = req.GET.get(name)
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise webob.exc.HTTPBadRequest(
        explanation=f'Invalid {name} {value!r}: expected a boolean.'
    )
