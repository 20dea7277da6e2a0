"""``GET /v1`` lists a resource from the version that added it."""

import types

import orjson
import pytest
import webob

from ironic_lite.api import microversion as mv
from ironic_lite.api import util
from ironic_lite.api.handlers import root


def _v1(version: str | None) -> dict:
    headers = (
        {} if version is None else {'X-OpenStack-Ironic-API-Version': version}
    )
    req = webob.Request.blank('/v1', headers=headers)
    req.environ[util.DEPS_KEY] = types.SimpleNamespace(
        public_endpoint=None, versions=mv.versions_for(False)
    )
    return orjson.loads(root.show_v1(req).body)


@pytest.mark.parametrize(
    'name, before, at',
    [('volume', '1.31', '1.32'), ('events', '1.53', '1.54')],
    ids=['volume', 'events'],
)
def test_listed_from_its_version(name, before, at) -> None:
    assert name not in _v1(before)
    assert _v1(at)[name][0]['href'].endswith(f'/v1/{name}/')


def test_a_bad_header_lists_the_base_resources() -> None:
    document = _v1('9.9')
    assert 'nodes' in document and 'volume' not in document
    assert 'volume' not in _v1(None)
