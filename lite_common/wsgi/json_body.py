"""Strict reading of JSON request bodies: what is accepted is stored as
sent, and anything that could not be stored as sent is a 400 (or a 413
for a body that is too large), never a 500 or a silent change.

Rejected besides malformed JSON:

- ``NaN``, ``Infinity`` and numbers that overflow a double (they would
  be stored as ``null``);
- integers outside 64 bits (the JSON columns and the responses are
  written by orjson, which cannot write them);
- strings holding a lone UTF-16 surrogate (``"\\ud800"``: not
  encodable as UTF-8) or a NUL character (refused by PostgreSQL);
- documents nested deeper than :data:`MAX_DEPTH` levels.

A body must be declared as JSON: a ``Content-Type`` of another type is a
415 ``Unsupported Content-Type`` (as upstream Nova answers for types it
does not parse). Unlike upstream, ``text/plain`` and a missing
``Content-Type`` are refused too: they (with the form types) are what a
web page can send to another site without a CORS preflight, and with
``http_basic`` the browser would attach the user's saved credentials.
The real clients always send ``application/json``.
"""

import json
import math
from typing import Any

import webob
import webob.exc

#: The largest request body accepted by default (bytes): a node or
#: server document is a few KiB; an API may pass a lower ``max_body``.
MAX_BODY = 1024 * 1024
#: Deepest nesting accepted (the JSON writer stops at 254 levels, and a
#: stored document is nested a few levels deeper in a response).
MAX_DEPTH = 100
_INT_MIN = -(2**63)
_INT_MAX = 2**64 - 1


class _Invalid(ValueError):
    """A value JSON allows that cannot be stored as sent."""


def _constant(name: str) -> Any:
    raise _Invalid(f'{name} is not a valid JSON number')


def _int(text: str) -> int:
    value = int(text)
    if not _INT_MIN <= value <= _INT_MAX:
        raise _Invalid(f'the integer {text[:40]} does not fit in 64 bits')
    return value


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Invalid(f'the number {text[:40]} is out of range')
    return value


def _check_string(value: str) -> None:
    if '\x00' in value:
        raise _Invalid('strings may not contain NUL characters (\\u0000)')
    try:
        value.encode('utf-8')
    except UnicodeEncodeError:
        raise _Invalid('strings may not contain lone UTF-16 surrogates')


def _check(value: Any, depth: int = 1) -> None:
    """Depth, keys and strings of a decoded document (numbers are
    checked while decoding)."""
    if depth > MAX_DEPTH:
        raise _Invalid(
            f'the document is nested deeper than {MAX_DEPTH} levels'
        )
    if isinstance(value, str):
        _check_string(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_string(key)
            _check(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check(item, depth + 1)


def loads(data: bytes) -> Any:
    """The document in ``data``; :class:`ValueError` says what is wrong."""
    try:
        document = json.loads(
            data, parse_constant=_constant, parse_int=_int, parse_float=_float
        )
    except _Invalid:
        raise
    except RecursionError:
        raise _Invalid(
            f'the document is nested deeper than {MAX_DEPTH} levels'
        )
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f'Malformed request body: {exc}')
    _check(document)
    return document


def _too_large(max_body: int) -> webob.exc.HTTPException:
    return webob.exc.HTTPRequestEntityTooLarge(
        explanation=f'Request body too large: the limit is {max_body} bytes.'
    )


def raw(req: webob.Request, max_body: int = MAX_BODY) -> bytes:
    """The request body, with a 413 above ``max_body`` bytes."""
    length = req.content_length
    if length is not None and length > max_body:
        raise _too_large(max_body)
    if length is None and req.is_body_readable:
        # Chunked: read to the end, but never more than the limit.
        chunks: list[bytes] = []
        size = 0
        while chunk := req.body_file.read(max_body + 1 - size):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_body:
                raise _too_large(max_body)
        return b''.join(chunks)
    body: bytes = req.body
    return body


def is_json_type(content_type: str) -> bool:
    """``application/json``, ``application/...+json`` and the JSON
    patch types (``application/json-patch+json``, Glance's
    ``application/openstack-images-v2.1-json-patch``)."""
    kind, _, subtype = content_type.lower().partition('/')
    return kind == 'application' and 'json' in subtype


def check_content_type(req: webob.Request) -> None:
    """A 415 unless the request declares a JSON body."""
    if not is_json_type(req.content_type or ''):
        raise webob.exc.HTTPUnsupportedMediaType(
            explanation='Unsupported Content-Type '
            f'{(req.content_type or "(none)")[:100]!r}: send the body as '
            'application/json.'
        )


def read(
    req: webob.Request, optional: bool = False, max_body: int = MAX_BODY
) -> Any:
    """The request's JSON document, or a 400 that says what is wrong
    (a 413 above ``max_body`` bytes).

    ``optional``: an empty body is ``{}``.
    """
    data = raw(req, max_body)
    if not data.strip():
        if optional:
            return {}
        raise webob.exc.HTTPBadRequest(
            explanation='The request body is empty; a JSON document is '
            'required.'
        )
    check_content_type(req)
    try:
        return loads(data)
    except _Invalid as exc:
        raise webob.exc.HTTPBadRequest(
            explanation=f'Invalid request body: {exc}.'
        )
    except ValueError as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc))
