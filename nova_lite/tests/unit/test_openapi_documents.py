"""The Compute and Image API documents: the image one current in
``doc/`` (lite_common's test checks the Compute one), both valid
OpenAPI 3.1, every operation described or listed as not yet, and the
microversion ranges of the route table in the Compute document."""

from pathlib import Path

from lite_common.tests import openapi_checks
from lite_common.wsgi import openapi
from nova_lite.api import described
from nova_lite.api import image_openapi
from nova_lite.api import openapi as compute_openapi
from nova_lite.api import routes

DOCS = Path(__file__).parents[3] / 'doc' / 'source' / 'api' / 'openapi'


def test_the_image_document_in_doc_is_current():
    assert (DOCS / 'image.json').read_text() == openapi.dumps(
        image_openapi.document()
    ), (
        'regenerate: python -m nova_lite.api.image_openapi > '
        'doc/source/api/openapi/image.json'
    )


def test_both_documents_are_valid_openapi():
    openapi_checks.assert_valid(compute_openapi.document())
    openapi_checks.assert_valid(image_openapi.document())


def test_every_compute_operation_is_described():
    described_count, total = openapi_checks.assert_covered(
        routes.COMPUTE_ROUTES,
        described.descriptions(),
        described.NOT_YET_DESCRIBED,
        compute_openapi.compute_path,
    )
    assert (described_count, total) == (98, 98)


def test_every_image_operation_is_described():
    described_count, total = openapi_checks.assert_covered(
        routes.IMAGE_ROUTES,
        image_openapi.descriptions(),
        image_openapi.NOT_YET_DESCRIBED,
    )
    assert (described_count, total) == (11, 11)


def _range(doc, path, method):
    return openapi.operation_range(doc, doc['paths'][path][method])


def test_the_compute_document_carries_the_microversion_ranges():
    doc = compute_openapi.document()
    assert _range(doc, '/v2.1/servers', 'get') == ('2.1', '2.100')
    assert _range(doc, '/v2.1/servers/{server_id}/tags', 'put') == (
        '2.26',
        '2.100',
    )
    assert _range(doc, '/v2.1/os-hypervisors/statistics', 'get') == (
        '2.1',
        '2.87',
    )
    assert _range(
        doc, '/v2.1/os-hypervisors/{hypervisor_hostname_pattern}/search', 'get'
    ) == ('2.1', '2.52')
    assert _range(doc, '/v2.1/flavors/{flavor_id}', 'put') == ('2.55', '2.100')


def test_described_fields_name_their_versions():
    """A field some versions lack says since or until which version
    (here: the server's, written once in the components)."""
    doc = compute_openapi.document()
    shown = doc['paths']['/v2.1/servers/{server_id}']['get']['responses'][
        '200'
    ]['content']['application/json']['schema']
    assert shown['properties']['server'] == {
        '$ref': '#/components/schemas/Server'
    }
    server = doc['components']['schemas']['Server']
    optional = set(server['properties']) - set(server['required'])
    unversioned = {
        'progress',
        'fault',
        'OS-EXT-SRV-ATTR:host',
        'OS-EXT-SRV-ATTR:hypervisor_hostname',
        'OS-EXT-SRV-ATTR:instance_name',
    }
    for name in optional - unversioned:
        text = server['properties'][name].get('description', '')
        assert 'since' in text or 'until' in text, name
