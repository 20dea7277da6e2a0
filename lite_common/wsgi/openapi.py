"""An OpenAPI 3.1 document built from an API's route table and the
jsonschema request schemas its handlers validate with.

Nothing is written by hand: paths, methods and path parameters come from
the route table (a Routes requirement such as ``{action:enable|disable}``
becomes an enum), request bodies from the schemas each API maps its
handlers to (:data:`Bodies`), converted from draft 4 to the JSON Schema
dialect of OpenAPI 3.1. Every operation may answer an error in the API's
own format (``default``).

What the table cannot say, each API says per handler with
:class:`Described` (:data:`Descriptions`): the query parameters the
handler reads and the bodies of its success answers. The microversion
range of an operation comes from the table (:class:`Versioned`): with a
:class:`MicroversionHeader`, every operation gets the header as an
optional parameter whose values are those of its range (a shared
component per range, ``x-openstack-microversions`` giving its bounds).
"""

from collections.abc import Callable
from collections.abc import Mapping
import copy
import dataclasses
import json
import re
from typing import Any

from lite_common.wsgi.microversion import APIVersion
from lite_common.wsgi.router import Handler
from lite_common.wsgi.router import RouteTable
from lite_common.wsgi.router import Versioned
from lite_common.wsgi.router import versioned

#: A handler's request body schema (the newest version's).
Bodies = Mapping[Handler, Mapping[str, Any]]
#: The extension that gives a microversion parameter's range.
RANGE_KEY = 'x-openstack-microversions'


@dataclasses.dataclass(frozen=True)
class Described:
    """What one handler reads from the query and answers on success.

    ``query``: parameter name -> JSON schema (draft 4 is converted, see
    :func:`modern`), ``required_query`` the names that must be given.
    ``responses``: success status -> body schema (None: no body). A
    schema holds for every microversion of the operation's range: a
    field that some versions lack is listed, not required, and its
    ``description`` says "since X.Y" or "until X.Y". A schema (at any
    depth) with a ``title`` is written once, under that name in the
    document's components, and referenced.
    """

    query: Mapping[str, Mapping[str, Any]] = dataclasses.field(
        default_factory=dict
    )
    required_query: frozenset[str] = frozenset()
    responses: Mapping[int, Mapping[str, Any] | None] = dataclasses.field(
        default_factory=dict
    )


Descriptions = Mapping[Handler, Described]


@dataclasses.dataclass(frozen=True)
class MicroversionHeader:
    """How an API's microversion is asked for: ``name: prefix X.Y``
    (``OpenStack-API-Version: compute 2.53``), from ``minimum`` to
    ``maximum``."""

    name: str
    prefix: str
    minimum: str
    maximum: str

    def bounds(self, route: Versioned) -> tuple[str, str] | None:
        """The first and last version of ``route`` within the API's
        (None: no version serves it)."""
        low = max(
            APIVersion.parse(self.minimum),
            APIVersion.parse(route.since or self.minimum),
        )
        high = min(
            APIVersion.parse(self.maximum),
            APIVersion.parse(route.until or self.maximum),
        )
        if low > high:
            return None
        return str(low), str(high)

    def values(self, low: str, high: str) -> list[str]:
        """Every header value from ``low`` to ``high`` (one major
        version), and ``latest`` where ``high`` is the maximum."""
        first, last = APIVersion.parse(low), APIVersion.parse(high)
        if first.major != last.major:
            raise ValueError(f'{low} to {high}: one major version only')
        values = [
            f'{self.prefix}{first.major}.{minor}'
            for minor in range(first.minor, last.minor + 1)
        ]
        if last == APIVersion.parse(self.maximum):
            values.append(f'{self.prefix}latest')
        return values

    def parameter(self, low: str, high: str) -> dict[str, Any]:
        return {
            'name': self.name,
            'in': 'header',
            'required': False,
            'description': f'The microversion, {low} to {high} '
            f'(none: {self.minimum}).',
            'schema': {'type': 'string', 'enum': self.values(low, high)},
            RANGE_KEY: {'min': low, 'max': high},
        }


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
    for bound, limit in (
        ('exclusiveMinimum', 'minimum'),
        ('exclusiveMaximum', 'maximum'),
    ):
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
        parameters.append(
            {'name': name, 'in': 'path', 'required': True, 'schema': schema}
        )
    return _VARIABLE.sub(r'{\1}', template), parameters


_NOTHING: Mapping[Any, Any] = {}


def document(
    title: str,
    version: str,
    table: RouteTable,
    bodies: Bodies,
    error_schema: Mapping[str, Any],
    include: Callable[[str], bool] = lambda path: True,
    descriptions: Descriptions = _NOTHING,
    microversion: MicroversionHeader | None = None,
) -> dict[str, Any]:
    """The OpenAPI document of ``table`` (paths for which ``include`` is
    true)."""
    paths: dict[str, Any] = {}
    seen: set[str] = set()
    headers: dict[str, Any] = {}
    for template, methods in table.items():
        if not include(template):
            continue
        path, parameters = _path(template)
        item: dict[str, Any] = {}
        if parameters:
            item['parameters'] = parameters
        for method in _METHODS:
            if method not in methods:
                continue
            route = versioned(methods[method])
            operation = _operation(
                route.handler, bodies, descriptions.get(route.handler)
            )
            if microversion is not None:
                _add_header(operation, route, microversion, headers)
            _make_unique(operation, method, path, seen)
            item[method.lower()] = operation
        paths[path] = item
    components: dict[str, Any] = {'schemas': {'Error': modern(error_schema)}}
    _hoist(paths, components['schemas'])
    if headers:
        components['parameters'] = headers
    return {
        'openapi': '3.1.0',
        'info': {'title': title, 'version': version},
        'paths': paths,
        'components': components,
    }


def _hoist(value: Any, shared: dict[str, Any]) -> Any:
    """``value`` with every schema that has a title moved to ``shared``
    (one schema per title) and referenced."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            value[index] = _hoist(item, shared)
        return value
    if not isinstance(value, dict):
        return value
    for key, item in value.items():
        value[key] = _hoist(item, shared)
    title = value.get('title')
    if not isinstance(title, str) or title == 'Error':
        return value
    if shared.setdefault(title, value) != value:
        raise ValueError(f'Two schemas are titled {title!r}')
    return {'$ref': f'#/components/schemas/{title}'}


def _add_header(
    operation: dict[str, Any],
    route: Versioned,
    header: MicroversionHeader,
    shared: dict[str, Any],
) -> None:
    """The microversion parameter of ``route``'s range: one component
    per range (most operations share the whole range)."""
    bounds = header.bounds(route)
    if bounds is None:
        raise ValueError(
            f'{operation["operationId"]}: {route.since} to '
            f"{route.until} is outside the API's versions"
        )
    name = f'microversion-{bounds[0]}-{bounds[1]}'
    if name not in shared:
        shared[name] = header.parameter(*bounds)
    operation.setdefault('parameters', []).insert(
        0, {'$ref': f'#/components/parameters/{name}'}
    )


def operation_range(
    doc: Mapping[str, Any], operation: Mapping[str, Any]
) -> tuple[str, str] | None:
    """The microversions of one operation of ``doc`` (None: it has no
    microversion parameter)."""
    for parameter in operation.get('parameters', ()):
        ref = parameter.get('$ref', '')
        if ref.startswith('#/components/parameters/'):
            parameter = doc['components']['parameters'][ref.split('/')[-1]]
        if RANGE_KEY in parameter:
            return parameter[RANGE_KEY]['min'], parameter[RANGE_KEY]['max']
    return None


def _make_unique(
    operation: dict[str, Any], method: str, path: str, seen: set[str]
) -> None:
    """OpenAPI wants one operationId per operation: a handler that serves
    several operations gets the method and the static words of the later
    paths as a suffix."""
    name = operation['operationId']
    if name in seen:
        words = [
            word
            for word in path.strip('/').split('/')
            if not word.startswith('{')
        ]
        name = f'{name}.{method.lower()}_{"_".join(words)}'
    if name in seen:
        # Paths that differ only by a parameter: name the parameters.
        words = [word.strip('{}') for word in path.strip('/').split('/')]
        name = f'{operation["operationId"]}.{method.lower()}_{"_".join(words)}'
    seen.add(name)
    operation['operationId'] = name


def _operation(
    handler: Handler, bodies: Bodies, described: Described | None
) -> dict[str, Any]:
    doc = (handler.__doc__ or '').strip().split('\n')[0]
    operation: dict[str, Any] = {
        'operationId': f'{handler.__module__.rsplit(".", 1)[-1]}.'
        f'{handler.__name__}',
        'responses': {
            **_responses(described),
            'default': {
                'description': "An error, in the API's error format.",
                'content': {
                    'application/json': {
                        'schema': {'$ref': '#/components/schemas/Error'}
                    }
                },
            },
        },
    }
    if doc:
        operation['summary'] = doc
    if described is not None and described.query:
        operation['parameters'] = [
            {
                'name': name,
                'in': 'query',
                'required': name in described.required_query,
                'schema': modern(copy.deepcopy(dict(schema))),
            }
            for name, schema in sorted(described.query.items())
        ]
    body = bodies.get(handler)
    if body is not None:
        operation['requestBody'] = {
            'required': True,
            'content': {
                'application/json': {
                    'schema': modern(copy.deepcopy(dict(body)))
                }
            },
        }
    return operation


def _responses(described: Described | None) -> dict[str, Any]:
    """The success answers (``2XX`` when the handler is not described:
    any, with any body)."""
    if described is None:
        return {'2XX': {'description': 'Success.'}}
    responses: dict[str, Any] = {}
    for status, schema in sorted(described.responses.items()):
        answer: dict[str, Any] = {
            'description': _REASONS.get(status, 'Success.')
        }
        if schema is not None:
            answer['content'] = {
                'application/json': {
                    'schema': modern(copy.deepcopy(dict(schema)))
                }
            }
        responses[str(status)] = answer
    return responses


_REASONS = {200: 'OK.', 201: 'Created.', 202: 'Accepted.', 204: 'No content.'}


def described_operations(
    table: RouteTable,
    descriptions: Descriptions,
    include: Callable[[str], bool] = lambda path: True,
) -> tuple[list[str], list[str]]:
    """The operations of ``table`` (``'GET /path'``) whose handler is
    described, and those whose handler is not."""
    described, not_yet = [], []
    for template, methods in table.items():
        if not include(template):
            continue
        for method, route in methods.items():
            name = f'{method} {template}'
            if versioned(route).handler in descriptions:
                described.append(name)
            else:
                not_yet.append(name)
    return described, not_yet


def dumps(doc: Mapping[str, Any]) -> str:
    """The document as it is checked into ``doc/`` (stable order)."""
    return json.dumps(doc, indent=2, sort_keys=True) + '\n'
