"""Pieces every Bare Metal answer schema uses: links, timestamps,
nullable types, objects whose fields appear at a version, pages."""

from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

Schema = dict[str, Any]

STRING: Schema = {'type': 'string'}
BOOLEAN: Schema = {'type': 'boolean'}
INTEGER: Schema = {'type': 'integer'}
OBJECT: Schema = {'type': 'object'}
#: A timestamp as the API writes it (``2024-01-02T03:04:05+00:00``).
TIME: Schema = {'type': 'string', 'format': 'date-time'}
#: ``self`` and ``bookmark`` links of an item.
LINKS: Schema = {
    'title': 'Links',
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {'href': STRING, 'rel': STRING, 'type': STRING},
        'required': ['href', 'rel'],
        'additionalProperties': False,
    },
}


def nullable(schema: Schema) -> Schema:
    """``schema`` or null."""
    kind = schema.get('type')
    if isinstance(kind, str):
        return {**schema, 'type': [kind, 'null']}
    return {'anyOf': [schema, {'type': 'null'}]}


STRING_OR_NULL = nullable(STRING)
TIME_OR_NULL = nullable(TIME)
OBJECT_OR_NULL = nullable(OBJECT)
BOOLEAN_OR_NULL = nullable(BOOLEAN)


def _described(schema: Schema, text: str) -> Schema:
    if 'title' in schema:
        # A named schema stays one: the description goes around it.
        return {'description': text, 'allOf': [schema]}
    return {**schema, 'description': text}


def since(schema: Schema, version: str) -> Schema:
    return _described(schema, f'since {version}')


def until(schema: Schema, version: str) -> Schema:
    return _described(schema, f'until {version}')


def resource(
    fields: Mapping[str, Schema],
    versions: Mapping[str, str] | None = None,
    required: Iterable[str] = (),
    title: str | None = None,
) -> Schema:
    """An object of ``fields`` (name -> schema), each field with a
    version in ``versions`` described as shown since it; no other
    field. A ``title`` names it in the document's components."""
    versions = versions or {}
    properties = {
        name: (
            since(schema, versions[name])
            if name in versions and versions[name] != '1.1'
            else schema
        )
        for name, schema in fields.items()
    }
    result: Schema = {
        'type': 'object',
        'properties': properties,
        'additionalProperties': False,
    }
    wanted = list(required)
    if wanted:
        result['required'] = wanted
    if title is not None:
        result['title'] = title
    return result


def page(item_name: str, item: Schema) -> Schema:
    """``{item_name: [item, ...], "next": url}`` (``next`` when the page
    is full)."""
    return {
        'type': 'object',
        'properties': {
            'next': STRING,
            item_name: {'type': 'array', 'items': item},
        },
        'required': [item_name],
        'additionalProperties': False,
    }


def wrapped(name: str, item: Schema) -> Schema:
    """``{name: item}``."""
    return {
        'type': 'object',
        'properties': {name: item},
        'required': [name],
        'additionalProperties': False,
    }
