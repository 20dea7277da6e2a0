"""An OpenAPI 3.1 document built from an API's route table and the
jsonschema request schemas its handlers validate with.

Nothing is written by hand: paths, methods and path parameters come from
the route table (a Routes requirement such as ``{action:enable|disable}``
becomes an enum), request bodies from the schemas each API maps its
handlers to (:data:`Bodies`), converted from draft 4 to the JSON Schema
dialect of OpenAPI 3.1. Every operation may answer an error in the API's
own format (``default``).
"""

from collections.abc import Callable
from collections.abc import Mapping
import copy
import json
import re
from typing import Any

from lite_common.wsgi.router import Handler
from lite_common.wsgi.router import RouteTable

#: A handler's request body schema (the newest version's).
Bodies = Mapping[Handler, Mapping[str, Any]]

_VARIABLE = re.compile(r'\{([a-zA-Z_][a-zA-Z0-9_]*)(?::([^}]*))?\}')
_METHODS = ('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD')


def modern(schema: Any) -> Any:
    """A draft 4 schema in the 2020-12 dialect of OpenAPI 3.1: boolean
    ``exclusiveMinimum``/``exclusiveMaximum`` become numbers."""
    if isinstance(schema, list):
        return [modern(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {key: modern(value) for key, value in schema.items()}
    for bound, limit in (('exclusiveMinimum', 'minimum'),
                         ('exclusiveMaximum', 'maximum')):
        if result.get(bound) is True and limit in result:
            result[bound] = result.pop(limit)
        elif result.get(bound) is False:
            del result[bound]
    return result


def _path(template: str) -> tuple[str, list[dict[str, Any]]]:
    """An OpenAPI path and its parameters from a Routes template."""
    parameters = []
    for name, requirement in _VARIABLE.findall(template):
        schema: dict[str, Any] = {'type': 'string', 'minLength': 1}
        if requirement:
            schema = {'type': 'string', 'enum': requirement.split('|')}
        parameters.append({'name': name, 'in': 'path', 'required': True,
                           'schema': schema})
    return _VARIABLE.sub(r'{\1}', template), parameters


def document(title: str, version: str, table: RouteTable, bodies: Bodies,
             error_schema: Mapping[str, Any],
             include: Callable[[str], bool] = lambda path: True
             ) -> dict[str, Any]:
    """The OpenAPI document of ``table`` (paths for which ``include`` is
    true)."""
    paths: dict[str, Any] = {}
    seen: set[str] = set()
    for template, methods in table.items():
        if not include(template):
            continue
        path, parameters = _path(template)
        item: dict[str, Any] = {}
        if parameters:
            item['parameters'] = parameters
        for method in _METHODS:
            handler = methods.get(method)
            if handler is not None:
                operation = _operation(handler, bodies)
                _make_unique(operation, method, path, seen)
                item[method.lower()] = operation
        paths[path] = item
    return {
        'openapi': '3.1.0',
        'info': {'title': title, 'version': version},
        'paths': paths,
        'components': {'schemas': {'Error': modern(error_schema)}},
    }


def _make_unique(operation: dict[str, Any], method: str, path: str,
                 seen: set[str]) -> None:
    """OpenAPI wants one operationId per operation: a handler that serves
    several operations gets the method and the static words of the later
    paths as a suffix."""
    name = operation['operationId']
    if name in seen:
        words = [word for word in path.strip('/').split('/')
                 if not word.startswith('{')]
        name = f'{name}.{method.lower()}_{"_".join(words)}'
    if name in seen:
        # Paths that differ only by a parameter: name the parameters.
        words = [word.strip('{}') for word in path.strip('/').split('/')]
        name = (f'{operation["operationId"]}.{method.lower()}_'
                f'{"_".join(words)}')
    seen.add(name)
    operation['operationId'] = name


def _operation(handler: Handler, bodies: Bodies) -> dict[str, Any]:
    doc = (handler.__doc__ or '').strip().split('\n')[0]
    operation: dict[str, Any] = {
        'operationId': f'{handler.__module__.rsplit(".", 1)[-1]}.'
                       f'{handler.__name__}',
        'responses': {
            '2XX': {'description': 'Success.'},
            'default': {
                'description': "An error, in the API's error format.",
                'content': {'application/json': {'schema': {
                    '$ref': '#/components/schemas/Error'}}}},
        },
    }
    if doc:
        operation['summary'] = doc
    body = bodies.get(handler)
    if body is not None:
        operation['requestBody'] = {
            'required': True,
            'content': {'application/json': {
                'schema': modern(copy.deepcopy(dict(body)))}}}
    return operation


def dumps(doc: Mapping[str, Any]) -> str:
    """The document as it is checked into ``doc/`` (stable order)."""
    return json.dumps(doc, indent=2, sort_keys=True) + '\n'
