"""The OpenAPI documents: generated, current in ``doc/``, complete, and
served at ``/openapi.json`` without credentials."""

from pathlib import Path

import pytest
import schemathesis

from ironic_lite.api import openapi as ironic_openapi
from ironic_lite.api import routes as ironic_routes
from lite_common.tests import openapi_checks
from lite_common.wsgi import openapi
from lite_common.wsgi import router
from nova_lite.api import openapi as nova_openapi
from nova_lite.api import routes as nova_routes

DOCS = Path(__file__).parents[2] / 'doc' / 'source' / 'api' / 'openapi'
APIS = {
    'compute': (nova_openapi, nova_routes.COMPUTE_ROUTES),
    'baremetal': (ironic_openapi, ironic_routes.ROUTES),
}
#: Handlers that take a body-less request although the method usually
#: has one.
BODILESS = {'set_maintenance_without_reason', 'add_trait', 'add_tag'}
#: Routes whose bodies are not JSON (the Image API: JSON patch with its
#: own media type, and image data).
NOT_JSON = {'update_image', 'upload_image_data'}


@pytest.mark.parametrize('name', sorted(APIS))
def test_the_document_in_doc_is_current(name):
    module, _ = APIS[name]
    expected = openapi.dumps(module.document())
    assert (DOCS / f'{name}.json').read_text() == expected, (
        f'regenerate: python -m {module.__name__} > '
        f'doc/source/api/openapi/{name}.json'
    )


@pytest.mark.parametrize('name', sorted(APIS))
def test_the_document_is_valid_openapi(name):
    module, _ = APIS[name]
    doc = module.document()
    openapi_checks.assert_valid(doc)
    schema = schemathesis.openapi.from_dict(doc)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert operations


@pytest.mark.parametrize('name', sorted(APIS))
def test_every_handler_that_reads_a_body_has_its_schema(name):
    """A new POST/PUT/PATCH handler must be added to ``bodies()``."""
    module, table = APIS[name]
    bodies = module.bodies()
    handlers = [
        (method, router.versioned(route).handler)
        for methods in table.values()
        for method, route in methods.items()
    ]
    missing = sorted(
        handler.__name__
        for method, handler in handlers
        if method in ('POST', 'PUT', 'PATCH')
        and handler not in bodies
        and handler.__name__ not in BODILESS | NOT_JSON
    )
    assert missing == []


def test_draft_4_bounds_become_2020_12():
    assert openapi.modern(
        {
            'minimum': 0,
            'exclusiveMinimum': True,
            'maximum': 5,
            'exclusiveMaximum': False,
        }
    ) == {'exclusiveMinimum': 0, 'maximum': 5}


def test_routes_requirements_become_enums():
    path, params = openapi._path('/os-services/{action:enable|disable}')
    assert path == '/os-services/{action}'
    assert params[0]['schema'] == {
        'type': 'string',
        'enum': ['enable', 'disable'],
    }


def _show(req):
    """Show a thing."""


def _create(req):
    """Create a thing."""


def _old(req):
    """An old thing."""


_TABLE = {
    '/things': {'GET': _show, 'POST': router.Versioned(_create, since='1.3')},
    '/things/old': {'GET': router.Versioned(_old, until='1.2')},
}
_HEADER = openapi.MicroversionHeader(
    'X-Thing-API-Version', 'thing ', '1.1', '1.4'
)
_THING = {
    'type': 'object',
    'properties': {'id': {'type': 'integer'}},
    'required': ['id'],
    'additionalProperties': False,
}


def _document(**kwargs):
    return openapi.document(
        'things', '1.4', _TABLE, {}, {'type': 'object'}, **kwargs
    )


def test_an_operation_gets_its_microversion_range_as_a_header():
    doc = _document(microversion=_HEADER)
    openapi_checks.assert_valid(doc)
    shown = doc['paths']['/things']['get']
    created = doc['paths']['/things']['post']
    old = doc['paths']['/things/old']['get']
    assert openapi.operation_range(doc, shown) == ('1.1', '1.4')
    assert openapi.operation_range(doc, created) == ('1.3', '1.4')
    assert openapi.operation_range(doc, old) == ('1.1', '1.2')
    parameters = doc['components']['parameters']
    assert parameters['microversion-1.3-1.4'] == {
        'name': 'X-Thing-API-Version',
        'in': 'header',
        'required': False,
        'description': 'The microversion, 1.3 to 1.4 (none: 1.1).',
        'schema': {
            'type': 'string',
            'enum': ['thing 1.3', 'thing 1.4', 'thing latest'],
        },
        'x-openstack-microversions': {'min': '1.3', 'max': '1.4'},
    }
    assert parameters['microversion-1.1-1.2']['schema']['enum'] == [
        'thing 1.1',
        'thing 1.2',
    ]


def test_without_a_header_operations_have_no_version_parameter():
    doc = _document()
    assert 'parameters' not in doc['components']
    assert openapi.operation_range(doc, doc['paths']['/things']['get']) is None


def test_an_operation_outside_the_api_versions_is_refused():
    with pytest.raises(ValueError):
        openapi.document(
            'things',
            '1.4',
            {'/x': {'GET': router.Versioned(_show, since='1.5')}},
            {},
            {},
            microversion=_HEADER,
        )


def test_a_described_operation_has_its_query_and_success_bodies():
    described = openapi.Described(
        query={
            'limit': {
                'type': 'integer',
                'minimum': 0,
                'exclusiveMinimum': True,
            },
            'name': {'type': 'string'},
        },
        required_query=frozenset({'name'}),
        responses={200: _THING},
    )
    doc = _document(
        descriptions={
            _show: described,
            _create: openapi.Described(responses={202: None}),
        },
        microversion=_HEADER,
    )
    openapi_checks.assert_valid(doc)
    shown = doc['paths']['/things']['get']
    assert shown['parameters'] == [
        {'$ref': '#/components/parameters/microversion-1.1-1.4'},
        {
            'name': 'limit',
            'in': 'query',
            'required': False,
            'schema': {'type': 'integer', 'exclusiveMinimum': 0},
        },
        {
            'name': 'name',
            'in': 'query',
            'required': True,
            'schema': {'type': 'string'},
        },
    ]
    assert shown['responses']['200'] == {
        'description': 'OK.',
        'content': {'application/json': {'schema': _THING}},
    }
    assert '2XX' not in shown['responses']
    assert 'default' in shown['responses']
    assert doc['paths']['/things']['post']['responses']['202'] == {
        'description': 'Accepted.'
    }
    # Not described: any success.
    assert doc['paths']['/things/old']['get']['responses']['2XX']


def test_every_operation_is_described_or_listed():
    descriptions = {_show: openapi.Described()}
    assert openapi_checks.assert_covered(
        _TABLE, descriptions, ['POST /things', 'GET /things/old']
    ) == (1, 3)
    with pytest.raises(AssertionError):
        openapi_checks.assert_covered(_TABLE, descriptions, ['POST /things'])
    with pytest.raises(AssertionError):
        openapi_checks.assert_covered(
            _TABLE,
            descriptions,
            ['GET /things', 'POST /things', 'GET /things/old'],
        )


def test_a_titled_schema_is_written_once_and_referenced():
    thing = {**_THING, 'title': 'Thing'}
    doc = _document(
        descriptions={
            _show: openapi.Described(responses={200: thing}),
            _create: openapi.Described(
                responses={201: {'type': 'array', 'items': thing}}
            ),
        }
    )
    openapi_checks.assert_valid(doc)
    assert doc['components']['schemas']['Thing'] == thing
    ref = {'$ref': '#/components/schemas/Thing'}
    answers = doc['paths']['/things']
    assert (
        answers['get']['responses']['200']['content']['application/json'][
            'schema'
        ]
        == ref
    )
    assert answers['post']['responses']['201']['content']['application/json'][
        'schema'
    ] == {'type': 'array', 'items': ref}


def test_two_schemas_with_one_title_are_refused():
    with pytest.raises(ValueError):
        _document(
            descriptions={
                _show: openapi.Described(
                    responses={200: {**_THING, 'title': 'Thing'}}
                ),
                _create: openapi.Described(
                    responses={201: {'type': 'object', 'title': 'Thing'}}
                ),
            }
        )
