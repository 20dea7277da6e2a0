"""URLs, links, path variables, identifiers and sizes of the API."""

import datetime
from typing import Any

import pytest
import webob
import webob.exc

from ironic_lite.api import util
from ironic_lite.api.handlers import nodes
from ironic_lite.api.schemas import nodes as schemas
from lite_common.wsgi import router


class _Deps:
    public_endpoint = None


def _request(path: str, script_name: str = '') -> webob.Request:
    req = webob.Request.blank(path)
    req.environ['SCRIPT_NAME'] = script_name
    req.environ[util.DEPS_KEY] = _Deps()
    return req


def test_base_url_keeps_the_mount_point() -> None:
    """Served under /baremetal (uWSGI, mod_wsgi): links keep it."""
    req = _request('/v1/nodes', script_name='/baremetal')
    assert util.base_url(req) == 'http://localhost/baremetal'
    assert util.links_at(util.base_url(req), 'nodes', 'u')[0]['href'] == (
        'http://localhost/baremetal/v1/nodes/u'
    )


def test_base_url_prefers_the_public_endpoint() -> None:
    req = _request('/v1/nodes', script_name='/baremetal')
    deps = _Deps()
    deps.public_endpoint = 'https://bm.example.com/'  # type: ignore
    req.environ[util.DEPS_KEY] = deps
    assert util.base_url(req) == 'https://bm.example.com'


def test_next_url_keeps_collection_and_query() -> None:
    req = _request('/v1/nodes/detail?driver=fake&limit=2&marker=old')
    assert util.next_url(req, 'nodes/detail', 'new', 2) == (
        'http://localhost/v1/nodes/detail?driver=fake&limit=2&marker=new'
    )


def test_path_var_is_decoded_as_utf8() -> None:
    """The router matches PEP 3333's latin-1 PATH_INFO."""
    seen = []

    def handler(req: webob.Request) -> webob.Response:
        seen.append(req.urlvars['node_ident'])
        return webob.Response()

    app = router.Router({'/v1/nodes/{node_ident}': {'GET': handler}})
    webob.Request.blank('/v1/nodes/%E2%98%83').get_response(app)
    assert seen == ['\u2603']


@pytest.mark.parametrize(
    'value',
    [
        '1BE26C0B-03F2-4D2E-AE87-C02D7F33C123',
        '1be26c0b03f24d2eae87c02d7f33c123',
        '{1be26c0b-03f2-4d2e-ae87-c02d7f33c123}',
    ],
)
def test_canonical_uuid(value: str) -> None:
    assert util.canonical_uuid(value) == (
        '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
    )


def test_dictionary_fields_must_fit_their_column() -> None:
    nodes.check_sizes({'extra': {'a': 'x' * 60000}})
    with pytest.raises(webob.exc.HTTPBadRequest) as raised:
        nodes.check_sizes(
            {'driver': 'fake', 'extra': {'a': 'x' * schemas.MAX_DICT_BYTES}}
        )
    assert 'The field extra is too large' in raised.value.explanation


def test_canonical_uuids_of_a_node() -> None:
    values: dict[str, Any] = {
        'uuid': '1BE26C0B03F24D2EAE87C02D7F33C123',
        'instance_uuid': None,
        'name': 'n',
    }
    assert nodes.canonical_uuids(values) == {
        'uuid': '1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
        'instance_uuid': None,
        'name': 'n',
    }


def test_clean_steps_must_fit_driver_internal_info() -> None:
    """The list is sized as the conductor stores it (each step with
    its flags added): 356 steps of 45 bytes passed the old limit on
    the request's own JSON (16 KiB), then overflowed
    driver_internal_info on MariaDB after a few cleanings."""
    from ironic_lite import exception
    from ironic_lite.api.handlers import node_states
    from lite_common.wsgi import microversion

    req = _request('/v1/nodes/n/states/provision')
    req.environ[microversion.ENV_KEY] = microversion.APIVersion(1, 116)
    step = {'interface': 'deploy', 'step': 'erase_devices'}
    assert (
        node_states._check_target(
            req, {'target': 'clean', 'clean_steps': [step] * 200}
        )
        == 'clean'
    )
    with pytest.raises(exception.InvalidParameterValue) as raised:
        node_states._check_target(
            req, {'target': 'clean', 'clean_steps': [step] * 356}
        )
    assert raised.value.code == 400
    assert 'as the conductor stores them' in str(raised.value)


def test_a_naive_time_from_rpc_is_shown_in_utc():
    """An allocation the conductor created comes back over RPC with its
    times as naive strings; the API shows every time with its offset."""
    assert util.isotime('2026-11-28T15:30:26.339786') == (
        '2026-11-28T15:30:26.339786+00:00'
    )
    assert util.isotime('2026-11-28T15:30:26+00:00') == (
        '2026-11-28T15:30:26+00:00'
    )
    assert util.isotime(datetime.datetime(2026, 1, 2, 3, 4, 5)) == (
        '2026-01-02T03:04:05+00:00'
    )
    assert util.isotime(None) is None
