"""JSON patch on a node: what changes, what is refused."""

import pytest
import webob.exc

from ironic_lite.api.handlers import node_update

ROW = {
    'uuid': '1be26c0b-03f2-4d2e-ae87-c02d7f33c123', 'name': 'n1',
    'driver': 'fake-hardware', 'driver_info': {'a': 1}, 'extra': {},
    'properties': {'cpus': 2}, 'instance_info': {}, 'instance_uuid': None,
    'description': 'd', 'resource_class': None, 'automated_clean': None,
    'deploy_interface': None, 'management_interface': None,
    'power_interface': None, 'provision_state': 'enroll',
}


def _patch(*operations: dict) -> dict:
    return node_update.patched_values(ROW, list(operations))


def test_add_nested_key() -> None:
    values = _patch({'op': 'add', 'path': '/driver_info/b', 'value': 2})
    assert values == {'driver_info': {'a': 1, 'b': 2}}
    assert ROW['driver_info'] == {'a': 1}


def test_replace_and_unchanged_fields_are_left_out() -> None:
    values = _patch({'op': 'replace', 'path': '/name', 'value': 'n2'},
                    {'op': 'replace', 'path': '/driver',
                     'value': 'fake-hardware'})
    assert values == {'name': 'n2'}


def test_remove_resets_the_field() -> None:
    assert _patch({'op': 'remove', 'path': '/description'}) == {
        'description': None}
    assert _patch({'op': 'remove', 'path': '/properties'}) == {
        'properties': {}}


@pytest.mark.parametrize('operation, message', [
    ({'op': 'replace', 'path': '/provision_state', 'value': 'available'},
     'internal attribute'),
    ({'op': 'replace', 'path': '/uuid', 'value': 'x'}, 'internal attribute'),
    ({'op': 'add', 'path': '/colour', 'value': 'blue'},
     'Adding a new attribute (/colour)'),
    ({'op': 'remove', 'path': '/extra/missing'}, 'Invalid patch'),
    ({'op': 'remove', 'path': '/driver'}, 'driver'),
    ({'op': 'replace', 'path': '/name', 'value': 'a b'}, 'name'),
    ({'op': 'replace', 'path': '/properties', 'value': [1]}, 'properties'),
    ({'op': 'test', 'path': '/name', 'value': 'other'}, 'Invalid patch'),
])
def test_refused(operation: dict, message: str) -> None:
    with pytest.raises(webob.exc.HTTPBadRequest) as raised:
        _patch(operation)
    assert message in raised.value.explanation
