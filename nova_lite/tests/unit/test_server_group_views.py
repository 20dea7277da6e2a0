"""os-server-groups bodies per microversion, including 2.64 (beyond
today's maximum, so not reachable through the API yet)."""

import pytest
import webob.exc

from lite_common.wsgi import handling
from lite_common.wsgi.microversion import APIVersion
from nova_lite.api.handlers import server_groups
from nova_lite.api.schemas import server_groups as schema

GROUP = {
    'uuid': 'u-1',
    'name': 'g',
    'policy': 'anti-affinity',
    'rules': {'max_server_per_host': 2},
    'members': ['m'],
    'project_id': 'p',
    'user_id': 'u',
}


def _v(text):
    return APIVersion.parse(text)


def test_views_per_version():
    assert server_groups.view(GROUP, _v('2.1')) == {
        'id': 'u-1',
        'name': 'g',
        'policies': ['anti-affinity'],
        'metadata': {},
        'members': ['m'],
    }
    assert set(server_groups.view(GROUP, _v('2.13'))) >= {
        'project_id',
        'user_id',
    }
    assert server_groups.view(GROUP, _v('2.64')) == {
        'id': 'u-1',
        'name': 'g',
        'policy': 'anti-affinity',
        'rules': {'max_server_per_host': 2},
        'members': ['m'],
        'project_id': 'p',
        'user_id': 'u',
    }
    assert (
        server_groups.view(dict(GROUP, rules=None), _v('2.64'))['rules'] == {}
    )


def _valid(version, body):
    handling.validate(schema.create(_v(version)), {'server_group': body})
    return server_groups.values_from(body, _v(version))


def test_create_2_64_policy_and_rules():
    assert _valid(
        '2.64',
        {
            'name': 'g',
            'policy': 'anti-affinity',
            'rules': {'max_server_per_host': '3'},
        },
    ) == {'policy': 'anti-affinity', 'rules': {'max_server_per_host': 3}}
    assert _valid('2.64', {'name': 'g', 'policy': 'soft-affinity'}) == {
        'policy': 'soft-affinity',
        'rules': {},
    }
    with pytest.raises(webob.exc.HTTPBadRequest, match='Only anti-affinity'):
        _valid(
            '2.64',
            {
                'name': 'g',
                'policy': 'affinity',
                'rules': {'max_server_per_host': 2},
            },
        )
    for bad in (
        {'name': 'g', 'policies': ['affinity']},
        {
            'name': 'g',
            'policy': 'anti-affinity',
            'rules': {'max_server_per_host': 0},
        },
        {'name': 'g', 'policy': 'anti-affinity', 'rules': {'other': 1}},
    ):
        with pytest.raises(webob.exc.HTTPBadRequest):
            _valid('2.64', bad)


def test_create_before_2_64():
    assert _valid('2.15', {'name': 'g', 'policies': ['soft-affinity']}) == {
        'policy': 'soft-affinity',
        'rules': None,
    }
    with pytest.raises(webob.exc.HTTPBadRequest):
        _valid('2.14', {'name': 'g', 'policies': ['soft-affinity']})
    with pytest.raises(webob.exc.HTTPBadRequest):
        _valid('2.15', {'name': 'g', 'policy': 'affinity'})
