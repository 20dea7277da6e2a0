"""Bare Metal API version negotiation: range, messages, history."""

import pytest
import webob.exc

from ironic_lite.api import microversion as mv
from ironic_lite.api import version_history
from lite_common.wsgi.microversion import APIVersion


def _requested(**headers: str) -> APIVersion:
    return mv.VERSIONS.requested(headers)


def test_no_header_is_the_minimum() -> None:
    assert _requested() == APIVersion(1, 1)


def test_latest_is_the_maximum() -> None:
    assert _requested(**{mv.LEGACY_HEADER: 'latest'}) == APIVersion(1, 115)


def test_openstack_api_version_header() -> None:
    version = _requested(**{'OpenStack-API-Version': 'baremetal 1.47'})
    assert version == APIVersion(1, 47)


def test_the_clients_last_known_version_is_accepted() -> None:
    assert _requested(**{mv.LEGACY_HEADER: '1.115'}) == APIVersion(1, 115)


@pytest.mark.parametrize('text', ['1.117', '1.0'])
def test_out_of_range_is_406_with_the_upstream_message(text: str) -> None:
    with pytest.raises(webob.exc.HTTPNotAcceptable) as raised:
        _requested(**{mv.LEGACY_HEADER: text})
    assert raised.value.explanation == (
        f'Version {text} was requested but the minor version is not '
        'supported by this service. The supported version range is: '
        '[1.1, 1.115].'
    )


def test_another_major_version_is_406() -> None:
    with pytest.raises(webob.exc.HTTPNotAcceptable) as raised:
        _requested(**{mv.LEGACY_HEADER: '2.0'})
    assert raised.value.explanation.startswith(
        'Mutually exclusive versions requested. Version 2.0 requested'
    )


def test_malformed_is_406_as_upstream() -> None:
    with pytest.raises(webob.exc.HTTPNotAcceptable) as raised:
        _requested(**{mv.LEGACY_HEADER: '1.x'})
    assert 'Invalid value for X-OpenStack-Ironic-API-Version' in (
        raised.value.explanation
    )


def test_response_headers() -> None:
    headers = dict(mv._response_headers(mv.VERSIONS, APIVersion(1, 50)))
    assert headers[mv.LEGACY_HEADER] == '1.50'
    assert headers['OpenStack-API-Version'] == 'baremetal 1.50'
    assert headers[mv.MIN_HEADER] == '1.1'
    assert headers[mv.MAX_HEADER] == '1.115'


def test_history_documents_every_feature_version() -> None:
    """A version constant without a history entry is a mistake (the
    clean steps extension has no number of its own)."""
    documented = [version for version, _text in version_history.HISTORY]
    features = {
        value
        for name, value in vars(mv).items()
        if name.isupper()
        and isinstance(value, str)
        and value[:2] == '1.'
        and name not in ('COMPLETE_VERSION', 'MAX_VERSION')
    }
    assert features - set(documented) == set()


def test_history_is_ordered_and_within_the_range() -> None:
    versions = [APIVersion.parse(v) for v, _text in version_history.HISTORY]
    assert versions == sorted(set(versions))
    assert str(versions[0]) == mv.MIN_VERSION
    assert versions[-1] <= APIVersion.parse(mv.MAX_VERSION)
    assert all(text.strip() for _v, text in version_history.HISTORY)


@pytest.mark.parametrize('text', ['0.9', '3.1', '0.0'])
def test_other_majors_are_406_not_400(text: str) -> None:
    """Upstream parses two integers, then compares the major."""
    with pytest.raises(webob.exc.HTTPNotAcceptable) as raised:
        _requested(**{mv.LEGACY_HEADER: text})
    assert raised.value.explanation.startswith(
        f'Mutually exclusive versions requested. Version {text} requested'
    )


@pytest.mark.parametrize(
    'text, version',
    [
        ('1.05', APIVersion(1, 5)),
        (' 1.20 ', APIVersion(1, 20)),
        ('LATEST', APIVersion(1, 115)),
    ],
)
def test_parsed_as_upstream(text: str, version: APIVersion) -> None:
    assert _requested(**{mv.LEGACY_HEADER: text}) == version


@pytest.mark.parametrize(
    'text', ['1', '1.1.1', '1.-1', 'v1.1', '1.٣', '1.1234567890']
)
def test_more_malformed_versions_are_406(text: str) -> None:
    with pytest.raises(webob.exc.HTTPNotAcceptable):
        _requested(**{mv.LEGACY_HEADER: text})


def test_an_empty_version_is_the_minimum() -> None:
    assert str(_requested(**{mv.LEGACY_HEADER: ''})) == mv.MIN_VERSION
