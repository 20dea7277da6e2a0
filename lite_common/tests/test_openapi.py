"""The OpenAPI documents: generated, current in ``doc/``, complete, and
served at ``/openapi.json`` without credentials."""

from pathlib import Path

import pytest
import schemathesis

from ironic_lite.api import openapi as ironic_openapi
from ironic_lite.api import routes as ironic_routes
from lite_common.wsgi import openapi
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
        f'doc/source/api/openapi/{name}.json')


@pytest.mark.parametrize('name', sorted(APIS))
def test_the_document_is_valid_openapi(name):
    module, _ = APIS[name]
    schema = schemathesis.openapi.from_dict(module.document())
    operations = [result.ok() for result in schema.get_all_operations()]
    assert operations
    ids = [operation['operationId']
           for item in module.document()['paths'].values()
           for operation in item.values() if isinstance(operation, dict)]
    assert len(ids) == len(set(ids)), 'operationId must be unique'


@pytest.mark.parametrize('name', sorted(APIS))
def test_every_handler_that_reads_a_body_has_its_schema(name):
    """A new POST/PUT/PATCH handler must be added to ``bodies()``."""
    module, table = APIS[name]
    bodies = module.bodies()
    missing = sorted(
        handler.__name__ for methods in table.values()
        for method, handler in methods.items()
        if method in ('POST', 'PUT', 'PATCH') and handler not in bodies
        and handler.__name__ not in BODILESS | NOT_JSON)
    assert missing == []


def test_draft_4_bounds_become_2020_12():
    assert openapi.modern({'minimum': 0, 'exclusiveMinimum': True,
                           'maximum': 5, 'exclusiveMaximum': False}) == {
        'exclusiveMinimum': 0, 'maximum': 5}


def test_routes_requirements_become_enums():
    path, params = openapi._path('/os-services/{action:enable|disable}')
    assert path == '/os-services/{action}'
    assert params[0]['schema'] == {'type': 'string',
                                   'enum': ['enable', 'disable']}
