"""The Bare Metal API's OpenAPI document: valid, every operation
described (or listed as not yet), every microversion range of the route
table in it."""

from ironic_lite.api import described
from ironic_lite.api import microversion as mv
from ironic_lite.api import openapi
from ironic_lite.api import routes
from lite_common.tests import openapi_checks
from lite_common.wsgi import openapi as common
from lite_common.wsgi import router


def test_the_document_is_valid_openapi_3_1():
    openapi_checks.assert_valid(openapi.document())


def test_every_operation_is_described_or_listed_as_not_yet():
    done, total = openapi_checks.assert_covered(
        routes.ROUTES, described.descriptions(), described.NOT_YET_DESCRIBED
    )
    assert (done, total) == (166, 166)


def test_every_operation_carries_its_microversion_range():
    doc = openapi.document()
    for template, methods in routes.ROUTES.items():
        path = common._path(template)[0]
        for method, route in methods.items():
            since = router.versioned(route).since or mv.MIN_VERSION
            operation = doc['paths'][path][method.lower()]
            assert common.operation_range(doc, operation) == (
                since,
                mv.MAX_VERSION,
            ), (method, template)


def test_a_resource_below_its_version_is_not_found():
    route = routes.ROUTES['/v1/conductors']['GET']
    assert route == router.Versioned(route.handler, since=mv.CONDUCTOR)
    # Upstream's 405 to write below 1.52: the handler's answer.
    route = routes.ROUTES['/v1/allocations']['POST']
    assert route.since == mv.ALLOCATIONS and route.answers_outside


def test_the_header_lists_every_version_of_the_range():
    doc = openapi.document()
    header = doc['components']['parameters'][
        f'microversion-{mv.CONDUCTOR}-{mv.MAX_VERSION}'
    ]
    assert header['name'] == 'X-OpenStack-Ironic-API-Version'
    values = header['schema']['enum']
    assert values[0] == mv.CONDUCTOR and values[-2:] == [
        mv.MAX_VERSION,
        'latest',
    ]
    assert len(values) == 115 - 49 + 2
