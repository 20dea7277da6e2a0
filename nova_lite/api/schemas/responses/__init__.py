"""Success response bodies of the Compute and image APIs, as JSON Schema.

One module per resource; each schema holds for every microversion of its
operation: a field that exists only from (or until) some version is
listed but not required, and its ``description`` says "since X.Y" or
"until X.Y". Main objects refuse unknown fields
(``additionalProperties: false``), so that the fuzz run's
``response_schema_conformance`` check reports a field the server shows
and the document does not describe.

The helpers here keep the modules short.
"""

from collections.abc import Mapping
from typing import Any

Schema = dict[str, Any]

STRING: Schema = {'type': 'string'}
NULLABLE_STRING: Schema = {'type': ['string', 'null']}
INTEGER: Schema = {'type': 'integer'}
NULLABLE_INTEGER: Schema = {'type': ['integer', 'null']}
NUMBER: Schema = {'type': 'number'}
BOOLEAN: Schema = {'type': 'boolean'}
#: ``2024-01-02T03:04:05.000000`` (no zone) or ``...Z``.
TIME: Schema = {'type': 'string'}
NULLABLE_TIME: Schema = {'type': ['string', 'null']}
STRING_MAP: Schema = {
    'type': 'object',
    'additionalProperties': {'type': 'string'},
}
STRINGS: Schema = {'type': 'array', 'items': {'type': 'string'}}

LINK: Schema = {
    'type': 'object',
    'properties': {'rel': STRING, 'href': STRING, 'type': STRING},
    'required': ['rel', 'href'],
    'additionalProperties': False,
}
LINKS: Schema = {'type': 'array', 'items': LINK}


def obj(
    required: Mapping[str, Schema],
    optional: Mapping[str, Schema] | None = None,
) -> Schema:
    """An object with exactly these fields (``optional`` may be
    absent)."""
    return {
        'type': 'object',
        'properties': {**required, **(optional or {})},
        'required': sorted(required),
        'additionalProperties': False,
    }


def titled(title: str, schema: Schema) -> Schema:
    """A schema the document writes once, in its components, and
    references (one title, one schema: a changed copy needs no title)."""
    return {'title': title, **schema}


def array(items: Schema) -> Schema:
    return {'type': 'array', 'items': items}


def since(version: str, schema: Schema) -> Schema:
    """A field shown from ``version`` on."""
    return {**schema, 'description': f'since {version}'}


def until(version: str, schema: Schema) -> Schema:
    """A field shown up to ``version`` (included)."""
    return {**schema, 'description': f'until {version}'}


def one_of(*schemas: Schema) -> Schema:
    return {'anyOf': list(schemas)}


def wrapped(
    name: str, schema: Schema, optional: Mapping[str, Schema] | None = None
) -> Schema:
    """``{name: schema}`` (and ``optional`` siblings such as a page's
    ``*_links``)."""
    return obj({name: schema}, optional)
