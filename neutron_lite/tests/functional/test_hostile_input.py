"""Hostile input against the Networking API, from a seeded generator
(hypothesis): random bodies for every create and update (each attribute
of the resource's map given a value of a random JSON type, plus unknown
keys), random query strings for every list, random ids and If-Match
headers. Every answer must be a success or a 4xx in Neutron's error
format: never a 5xx, never a traceback or SQL in a body.

``NEUTRON_LITE_HOSTILE_EXAMPLES`` runs more (the default is CI's)."""

import json
import os
import re
from typing import Any
import urllib.parse

import hypothesis
from hypothesis import strategies as st
import pytest
import webob

from neutron_lite.api import definitions
from neutron_lite.tests.functional import fixtures

EXAMPLES = int(os.environ.get('NEUTRON_LITE_HOSTILE_EXAMPLES', '60'))
SEED = 3434
LEAKS = re.compile(
    r'Traceback|sqlalchemy|sqlite3|pymysql|\bSELECT\b|\bINSERT INTO\b',
    re.IGNORECASE,
)
ADMIN = {'X-Project-Id': 'p1', 'X-Roles': 'admin,member,reader'}
MEMBER = {'X-Project-Id': 'p2', 'X-Roles': 'member,reader'}

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=300),
    st.sampled_from(
        [
            '10.0.0.0/24',
            '2001:db8::/64',
            '10.0.0.5',
            'fa:16:3e:00:00:01',
            'vlan',
            'flat',
            'physnet1',
            'true',
            '',
            '00000000-0000-0000-0000-000000000000',
        ]
    ),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(max_size=12), inner, max_size=3),
    ),
    max_leaves=6,
)


@pytest.fixture(scope='module')
def stack():
    running = fixtures.Stack().start()
    app = running.app
    network = _call(
        app, 'POST', '/v2.0/networks', ADMIN, {'network': {'name': 'n'}}
    )['network']
    subnet = _call(
        app,
        'POST',
        '/v2.0/subnets',
        ADMIN,
        {
            'subnet': {
                'network_id': network['id'],
                'ip_version': 4,
                'cidr': '10.0.0.0/24',
            }
        },
    )['subnet']
    port = _call(
        app,
        'POST',
        '/v2.0/ports',
        ADMIN,
        {'port': {'network_id': network['id']}},
    )['port']
    group = _call(
        app,
        'POST',
        '/v2.0/security-groups',
        ADMIN,
        {'security_group': {'name': 'g'}},
    )['security_group']
    try:
        yield (
            app,
            {
                'networks': network['id'],
                'subnets': subnet['id'],
                'ports': port['id'],
                'security-groups': group['id'],
                'security-group-rules': group['security_group_rules'][0]['id'],
            },
        )
    finally:
        running.stop()


def _call(app, method, path, headers, body=None, raw=None):
    req = webob.Request.blank(path, method=method, headers=headers)
    if raw is not None:
        req.body = raw
        req.content_type = 'application/json'
    elif body is not None:
        req.json = body
        req.content_type = 'application/json'
    resp = req.get_response(app)
    assert resp.status_int < 300, (method, path, resp.status, resp.text)
    return resp.json if resp.body else None


def _check(
    resp: webob.Response, what: str, echoed: tuple[str, ...] = ()
) -> None:
    """``echoed``: what the request sent, which an answer may repeat
    (a name, an id) without leaking anything."""
    assert resp.status_int < 500, (what, resp.status, resp.text)
    text = resp.text
    for sent in echoed:
        if sent:
            text = text.replace(sent, '')
    assert not LEAKS.search(text), (what, resp.text)
    if resp.status_int >= 400 and resp.body and 'HEAD' not in what:
        error = resp.json['NeutronError']
        assert set(error) == {'type', 'message', 'detail'}, (what, error)


_MAPS = {
    'networks': ('network', definitions.NETWORK),
    'subnets': ('subnet', definitions.SUBNET),
    'ports': ('port', definitions.PORT),
    'security-groups': ('security_group', definitions.SECURITY_GROUP),
    'security-group-rules': (
        'security_group_rule',
        definitions.SECURITY_GROUP_RULE,
    ),
}


def _bodies(collection: str) -> Any:
    name, attributes = _MAPS[collection]
    fields = st.dictionaries(
        st.sampled_from(sorted(attributes) + ['bogus']), _json, max_size=6
    )
    return st.one_of(
        fields.map(lambda f: {name: f}),
        _json,
    )


_SETTINGS = hypothesis.settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture],
)


@pytest.mark.parametrize('collection', sorted(_MAPS))
@hypothesis.seed(SEED)
@_SETTINGS
@hypothesis.given(data=st.data())
def test_creates_and_updates_never_fail_the_server(stack, collection, data):
    app, ids = stack
    headers = data.draw(st.sampled_from([ADMIN, MEMBER]))
    body = data.draw(_bodies(collection))
    for method, path in (
        ('POST', f'/v2.0/{collection}'),
        ('PUT', f'/v2.0/{collection}/{ids[collection]}'),
    ):
        extra = {}
        if data.draw(st.booleans()):
            extra['If-Match'] = data.draw(
                st.sampled_from(
                    ['revision_number=0', 'revision_number=x', 'x', '']
                )
            )
        req = webob.Request.blank(
            path, method=method, headers={**headers, **extra}
        )
        req.json = body
        req.content_type = 'application/json'
        resp = req.get_response(app)
        _check(resp, f'{method} {path} {body!r}', _strings(body))
        # Whatever was made goes again (the pools stay usable).
        if method == 'POST' and resp.status_int == 201:
            made = resp.json[_MAPS[collection][0]]['id']
            delete = webob.Request.blank(
                f'/v2.0/{collection}/{made}', method='DELETE', headers=ADMIN
            )
            _check(delete.get_response(app), 'DELETE what was made')


def _strings(value: Any) -> tuple[str, ...]:
    """Every text (and its JSON form) in a body, keys included."""
    if isinstance(value, str):
        return (value, json.dumps(value)[1:-1])
    if isinstance(value, dict):
        return tuple(
            s for k, v in value.items() for s in (*_strings(k), *_strings(v))
        )
    if isinstance(value, list):
        return tuple(s for v in value for s in _strings(v))
    return (str(value),)


_query_keys = st.sampled_from(
    [
        'name',
        'id',
        'limit',
        'marker',
        'page_reverse',
        'sort_key',
        'sort_dir',
        'fields',
        'tags',
        'not-tags-any',
        'fixed_ips',
        'shared',
        'mtu',
        'ip_version',
        'admin_state_up',
        'router:external',
        'bogus',
    ]
)


@pytest.mark.parametrize('collection', sorted(_MAPS))
@hypothesis.seed(SEED)
@_SETTINGS
@hypothesis.given(
    params=st.lists(st.tuples(_query_keys, st.text(max_size=40)), max_size=5),
    item=st.one_of(st.text(max_size=40), st.just('')),
)
def test_lists_and_shows_never_fail_the_server(
    stack, collection, params, item
):
    app, _ids = stack
    query = urllib.parse.urlencode(params)
    resp = webob.Request.blank(
        f'/v2.0/{collection}?{query}', headers=ADMIN
    ).get_response(app)
    _check(
        resp,
        f'GET {collection}?{query}',
        tuple(v for pair in params for v in pair),
    )
    quoted = urllib.parse.quote(item, safe='')
    for method in ('GET', 'DELETE', 'HEAD'):
        resp = webob.Request.blank(
            f'/v2.0/{collection}/{quoted}', method=method, headers=MEMBER
        ).get_response(app)
        _check(resp, f'{method} {collection}/{quoted}', (item, quoted))


def test_a_body_that_is_no_json_object(stack):
    app, _ids = stack
    for raw in (
        b'',
        b'[]',
        b'"x"',
        b'{"network": ',
        b'\xff\xfe',
        b'{"network": []}',
    ):
        req = webob.Request.blank(
            '/v2.0/networks', method='POST', headers=ADMIN
        )
        req.body = raw
        req.content_type = 'application/json'
        _check(req.get_response(app), f'POST {raw!r}')
