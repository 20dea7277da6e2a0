"""The fuzzer reports answers that are not the ones the document
describes, and sends the microversions the document allows."""

import json

import webob

from lite_common.tests import fuzz
from lite_common.wsgi import openapi
from lite_common.wsgi import router

_HEADER = openapi.MicroversionHeader('X-Thing-Version', '', '1.1', '1.3')
_THING = {
    'type': 'object',
    'properties': {'id': {'type': 'integer'}},
    'required': ['id'],
    'additionalProperties': False,
}


def _app(answer, seen):
    def show(req):
        """Show a thing."""
        seen.append(req.headers.get('X-Thing-Version'))
        status, body = answer
        return webob.Response(status=status, json_body=body)

    def remove(req):
        """Remove a thing."""
        return webob.Response(status=204)

    table = {
        '/things': {
            'GET': router.Versioned(show, since='1.2'),
            'DELETE': remove,
        }
    }
    doc = openapi.document(
        'things',
        '1.3',
        table,
        {},
        {'type': 'object'},
        descriptions={
            show: openapi.Described(responses={200: _THING}),
            remove: openapi.Described(responses={204: None}),
        },
        microversion=_HEADER,
    )
    table['/openapi.json'] = {'GET': lambda req: webob.Response(json_body=doc)}
    return router.Router(table)


def _fuzz(answer, seen):
    return fuzz.fuzz(_app(answer, seen), {}, lambda body: True, 5, 1)


def _problems(report):
    return sorted(
        {
            (f.method, f.status, f.problem.split(':')[0])
            for f in report.findings
        }
    )


def test_answers_as_described_are_clean():
    seen = []
    report = _fuzz(('200 OK', {'id': 1}), seen)
    assert report.findings == []
    # Valid requests ask for the operation's versions (1.1 is not one);
    # invalid ones for anything.
    assert set(seen) & {'1.2', '1.3', 'latest'}
    assert '1.1' not in seen


def test_a_body_not_as_described_is_a_finding():
    report = _fuzz(('200 OK', {'id': 1, 'extra': json.dumps('x')}), [])
    assert _problems(report) == [('GET', 200, 'not as documented')]


def test_a_success_status_not_listed_is_a_finding():
    report = _fuzz(('201 Created', {'id': 1}), [])
    assert _problems(report) == [
        (
            'GET',
            201,
            'a success status the document does not list (200, default)',
        )
    ]
