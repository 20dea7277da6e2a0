"""Microversion parsing and range checks."""

import pytest
import webob
import webob.exc

from lite_common.wsgi import microversion

LEGACY = 'X-OpenStack-Nova-API-Version'


def _headers(versions, version):
    return [
        ('OpenStack-API-Version', f'compute {version}'),
        (LEGACY, str(version)),
    ]


@pytest.fixture
def versions():
    return microversion.VersionRange(
        'compute', '2.1', '2.53', LEGACY, _headers
    )


def _requested(versions, headers):
    # Through a real request so that header names are case-insensitive
    # as they are on the wire.
    return versions.requested(
        webob.Request.blank('/', headers=headers).headers
    )


def test_no_header_is_the_minimum(versions):
    assert _requested(versions, {}) == microversion.APIVersion(2, 1)


def test_header_for_another_service_is_ignored(versions):
    assert _requested(
        versions, {'OpenStack-API-Version': 'baremetal 1.50'}
    ) == (2, 1)


@pytest.mark.parametrize(
    'headers',
    [
        {'OpenStack-API-Version': 'compute latest'},
        {'OpenStack-API-Version': 'compute LATEST'},
        {LEGACY: 'latest'},
    ],
)
def test_latest_is_the_maximum(versions, headers):
    assert _requested(versions, headers) == microversion.APIVersion(2, 53)


@pytest.mark.parametrize(
    'headers',
    [
        {'OpenStack-API-Version': 'compute 2.5'},
        {'openstack-api-version': 'compute 2.5'},
        {LEGACY: '2.5'},
    ],
)
def test_explicit_version(versions, headers):
    version = _requested(versions, headers)
    assert version == microversion.APIVersion(2, 5)
    assert str(version) == '2.5'


def test_new_header_wins_over_legacy(versions):
    assert _requested(
        versions, {'OpenStack-API-Version': 'compute 2.10', LEGACY: '2.3'}
    ) == (2, 10)


@pytest.mark.parametrize('text', ['2.0', '2.54', '3.1', '1.99'])
def test_out_of_range_is_406(versions, text):
    with pytest.raises(webob.exc.HTTPNotAcceptable) as err:
        _requested(versions, {'OpenStack-API-Version': f'compute {text}'})
    assert err.value.code == 406
    assert 'Minimum is 2.1 and maximum is 2.53' in err.value.explanation
    with pytest.raises(webob.exc.HTTPNotAcceptable):
        _requested(versions, {LEGACY: text})


@pytest.mark.parametrize(
    'text', ['2.x', '2', 'two', '2.05', '02.5', '2.5.1', '-2.5']
)
def test_malformed_is_400(versions, text):
    with pytest.raises(webob.exc.HTTPBadRequest) as err:
        _requested(versions, {'OpenStack-API-Version': f'compute {text}'})
    assert err.value.code == 400
    assert repr(text) in err.value.explanation


def test_version_compares_numerically():
    # 2.10 is newer than 2.9 (not a decimal fraction).
    assert microversion.APIVersion.parse(
        '2.10'
    ) > microversion.APIVersion.parse('2.9')


def test_at_least_and_below():
    v = microversion.APIVersion.parse('2.47')
    assert v.at_least('2.47')
    assert v.at_least('2.9')
    assert not v.at_least('2.48')
    assert not v.at_least('3.0')
    assert v.below('2.48')
    assert not v.below('2.47')


def test_within():
    v = microversion.APIVersion(2, 19)
    assert v.within('2.19')
    assert v.within('2.1', '2.19')
    assert v.within('2.10', '2.20')
    assert not v.within('2.20')
    assert not v.within('2.1', '2.18')
    assert not v.within('2.2', '2.9')


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        microversion.APIVersion.parse('2.x')
    assert microversion.APIVersion.parse(' 2.3 ') == (2, 3)


def test_middleware_sets_version_and_response_headers(versions):
    seen = {}

    def app(environ, start_response):
        seen['version'] = environ[microversion.ENV_KEY]
        return webob.Response(body=b'ok')(environ, start_response)

    wrapped = microversion.MicroversionMiddleware(
        app, versions, unversioned=lambda path: path == '/'
    )
    resp = webob.Request.blank(
        '/servers', headers={LEGACY: '2.7'}
    ).get_response(wrapped)
    assert seen['version'] == (2, 7)
    assert resp.headers['OpenStack-API-Version'] == 'compute 2.7'
    assert resp.headers[LEGACY] == '2.7'

    # An unversioned path accepts any header and uses the minimum.
    resp = webob.Request.blank('/', headers={LEGACY: '9.9'}).get_response(
        wrapped
    )
    assert resp.status_int == 200
    assert seen['version'] == (2, 1)

    with pytest.raises(webob.exc.HTTPNotAcceptable):
        webob.Request.blank('/servers', headers={LEGACY: '9.9'}).get_response(
            wrapped
        )
