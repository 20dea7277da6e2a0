"""JSON patch on a node: what changes, what is refused."""

import pytest
import webob.exc

from ironic_lite.api.handlers import node_update

ROW = {
    'uuid': '1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
    'name': 'n1',
    'driver': 'fake-hardware',
    'driver_info': {'a': 1},
    'extra': {},
    'properties': {'cpus': 2},
    'instance_info': {},
    'instance_uuid': None,
    'description': 'd',
    'resource_class': None,
    'automated_clean': None,
    'deploy_interface': None,
    'management_interface': None,
    'power_interface': None,
    'provision_state': 'enroll',
}


def _patch(*operations: dict) -> dict:
    return node_update.patched_values(ROW, list(operations))


def test_add_nested_key() -> None:
    values = _patch({'op': 'add', 'path': '/driver_info/b', 'value': 2})
    assert values == {'driver_info': {'a': 1, 'b': 2}}
    assert ROW['driver_info'] == {'a': 1}


def test_replace_and_unchanged_fields_are_left_out() -> None:
    values = _patch(
        {'op': 'replace', 'path': '/name', 'value': 'n2'},
        {'op': 'replace', 'path': '/driver', 'value': 'fake-hardware'},
    )
    assert values == {'name': 'n2'}


def test_remove_resets_the_field() -> None:
    assert _patch({'op': 'remove', 'path': '/description'}) == {
        'description': None
    }
    assert _patch({'op': 'remove', 'path': '/properties'}) == {
        'properties': {}
    }


@pytest.mark.parametrize(
    'operation, message',
    [
        (
            {
                'op': 'replace',
                'path': '/provision_state',
                'value': 'available',
            },
            'internal attribute',
        ),
        (
            {'op': 'replace', 'path': '/uuid', 'value': 'x'},
            'internal attribute',
        ),
        (
            {'op': 'add', 'path': '/colour', 'value': 'blue'},
            'Adding a new attribute (/colour)',
        ),
        ({'op': 'remove', 'path': '/extra/missing'}, 'Invalid patch'),
        ({'op': 'remove', 'path': '/driver'}, 'driver'),
        ({'op': 'replace', 'path': '/name', 'value': 'a b'}, 'name'),
        ({'op': 'replace', 'path': '/properties', 'value': [1]}, 'properties'),
        ({'op': 'test', 'path': '/name', 'value': 'other'}, 'Invalid patch'),
    ],
)
def test_refused(operation: dict, message: str) -> None:
    with pytest.raises(webob.exc.HTTPBadRequest) as raised:
        _patch(operation)
    assert message in raised.value.explanation


SECRET_ROW = dict(
    ROW,
    driver_info={
        'ipmi_address': '192.0.2.1',
        'ipmi_password': 's3cret',
        'redfish': {'password': 's3cret', 'address': 'x'},
    },
    instance_info={'configdrive': 's3cret', 'root_gb': 1},
)


@pytest.mark.parametrize(
    'operation',
    [
        {
            'op': 'copy',
            'from': '/driver_info/ipmi_password',
            'path': '/extra/pw',
        },
        {
            'op': 'move',
            'from': '/driver_info/ipmi_password',
            'path': '/description',
        },
        {'op': 'copy', 'from': '/driver_info', 'path': '/extra'},
        {
            'op': 'test',
            'path': '/driver_info/ipmi_password',
            'value': 's3cret',
        },
        {'op': 'test', 'path': '/driver_info', 'value': {}},
        {'op': 'copy', 'from': '/driver_info/redfish', 'path': '/extra/r'},
        {
            'op': 'copy',
            'from': '/driver_info/redfish/password',
            'path': '/extra/r',
        },
        {'op': 'test', 'path': '/instance_info/configdrive', 'value': 's'},
        {'op': 'move', 'from': '/instance_info', 'path': '/extra'},
    ],
    ids=[
        'copy-secret',
        'move-secret',
        'copy-driver-info',
        'test-secret',
        'test-driver-info',
        'copy-nested',
        'copy-nested-secret',
        'test-configdrive',
        'move-instance-info',
    ],
)
def test_a_patch_cannot_read_secrets(operation: dict) -> None:
    with pytest.raises(webob.exc.HTTPBadRequest) as raised:
        node_update.patched_values(SECRET_ROW, [operation])
    assert 'it is or holds a secret' in raised.value.explanation
    assert 's3cret' not in raised.value.explanation


def test_a_patch_may_copy_what_is_shown_in_clear() -> None:
    values = node_update.patched_values(
        SECRET_ROW,
        [
            {
                'op': 'copy',
                'from': '/driver_info/ipmi_address',
                'path': '/extra/bmc',
            },
            {
                'op': 'copy',
                'from': '/driver_info/redfish/address',
                'path': '/extra/redfish',
            },
            {
                'op': 'replace',
                'path': '/driver_info/ipmi_password',
                'value': 'new',
            },
        ],
    )
    assert values['extra'] == {'bmc': '192.0.2.1', 'redfish': 'x'}
    assert values['driver_info']['ipmi_password'] == 'new'


@pytest.mark.parametrize(
    'operation',
    [
        {'op': 'add', 'path': '/driver_info/nokey/deeper', 'value': 1},
        {'op': 'add', 'path': '/driver_info/ipmi_password/x', 'value': 1},
        {'op': 'remove', 'path': '/driver_info/nokey'},
    ],
    ids=['missing-parent', 'into-a-string', 'remove-missing'],
)
def test_errors_name_the_operation_not_the_values(operation: dict) -> None:
    with pytest.raises(webob.exc.HTTPBadRequest) as raised:
        node_update.patched_values(
            SECRET_ROW,
            [{'op': 'add', 'path': '/extra/a', 'value': 1}, operation],
        )
    message = raised.value.explanation
    assert message.startswith(
        f'Invalid patch: operation 1 ({operation["op"]} {operation["path"]}): '
    )
    assert 's3cret' not in message and '192.0.2.1' not in message


def test_a_failed_test_does_not_show_the_value() -> None:
    with pytest.raises(webob.exc.HTTPBadRequest) as raised:
        node_update.patched_values(
            SECRET_ROW,
            [
                {
                    'op': 'test',
                    'path': '/driver_info/ipmi_address',
                    'value': 'x',
                }
            ],
        )
    assert raised.value.explanation == (
        'Invalid patch: operation 0 (test /driver_info/ipmi_address): the '
        'value is not the one tested'
    )
