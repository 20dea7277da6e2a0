"""JSON schemas of the query parameters the Bare Metal handlers read,
for the OpenAPI document (the handlers check the values themselves:
400 for a bad one, 406 for one newer than the request's version)."""

from collections.abc import Iterable
import re
from typing import Any

Schema = dict[str, Any]

LIMIT: Schema = {
    'type': 'integer',
    'minimum': 1,
    'maximum': 2**31 - 1,
    'description': 'At most [api]max_limit items (a larger '
    'limit is that one).',
}
MARKER: Schema = {
    'type': 'string',
    'format': 'uuid',
    'description': 'The uuid of the last item of the previous page.',
}
SORT_DIR: Schema = {'type': 'string', 'enum': ['asc', 'desc']}
DETAIL: Schema = {'type': 'boolean'}
STRING: Schema = {'type': 'string'}
UUID: Schema = {'type': 'string', 'format': 'uuid'}
BOOLEAN: Schema = {'type': 'boolean'}


def since(schema: Schema, version: str) -> Schema:
    """A parameter a request below ``version`` may not give."""
    return {**schema, 'description': f'since {version}'}


def one_of(names: Iterable[str]) -> Schema:
    return {'type': 'string', 'enum': sorted(names)}


def fields(allowed: Iterable[str]) -> Schema:
    """``?fields=a,b``: a comma separated list of ``allowed``."""
    names = '|'.join(re.escape(name) for name in sorted(allowed))
    return {
        'type': 'string',
        'pattern': f'^({names})(,({names}))*$',
        'description': 'The fields to show (a comma separated list).',
    }


def paging(sort_keys: Iterable[str] | None = None) -> dict[str, Schema]:
    """``limit``, ``marker``, ``sort_key`` (one of ``sort_keys``, any
    string when None) and ``sort_dir``."""
    return {
        'limit': LIMIT,
        'marker': MARKER,
        'sort_dir': SORT_DIR,
        'sort_key': STRING if sort_keys is None else one_of(sort_keys),
    }
