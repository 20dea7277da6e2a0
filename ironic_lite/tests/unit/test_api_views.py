"""Node documents: fields by version, masked secrets, timestamps."""

import datetime

import pytest

from ironic_lite.api.views import nodes as views
from lite_common.wsgi.microversion import APIVersion

ROW = {
    'id': 7,
    'uuid': '1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
    'name': 'n1',
    'driver': 'fake-hardware',
    'driver_info': {
        'ipmi_address': '192.0.2.1',
        'ipmi_password': 'pw',
        'snmp_auth_key': 'k',
        'empty_password': '',
    },
    'driver_internal_info': {},
    'extra': {},
    'instance_info': {},
    'instance_uuid': None,
    'properties': {'cpus': 2},
    'power_state': 'power off',
    'target_power_state': None,
    'provision_state': 'enroll',
    'target_provision_state': None,
    'provision_updated_at': None,
    'last_error': None,
    'maintenance': False,
    'maintenance_reason': None,
    'fault': None,
    'clean_step': {},
    'automated_clean': None,
    'reservation': None,
    'conductor_affinity': None,
    'description': None,
    'resource_class': None,
    'deploy_interface': 'fake',
    'management_interface': 'fake',
    'power_interface': 'fake',
    'created_at': datetime.datetime(2024, 1, 2, 3, 4, 5, 6),
    'updated_at': None,
}


def test_fields_grow_with_the_version() -> None:
    base = views.fields_at(APIVersion(1, 1))
    assert 'name' not in base and 'clean_step' not in base
    latest = views.fields_at(APIVersion(1, 116))
    for name in (
        'name',
        'clean_step',
        'fault',
        'automated_clean',
        'description',
        'conductor',
        'power_interface',
        'resource_class',
        'driver_internal_info',
    ):
        assert name in latest
    assert views.fields_at(APIVersion(1, 50)).count('description') == 0


def test_list_fields() -> None:
    assert views.list_fields_at(APIVersion(1, 1)) == (
        'uuid',
        'instance_uuid',
        'power_state',
        'provision_state',
        'maintenance',
        'links',
    )
    assert views.list_fields_at(APIVersion(1, 5))[1] == 'name'


def test_secrets_are_masked() -> None:
    masked = views.mask_secrets(ROW['driver_info'])
    assert masked == {
        'ipmi_address': '192.0.2.1',
        'ipmi_password': '******',
        'snmp_auth_key': '******',
        'empty_password': '',
    }
    assert ROW['driver_info']['ipmi_password'] == 'pw'


def test_nothing_to_mask_is_left_as_it_is() -> None:
    info = {'ipmi_address': 'x', 'n': [1, {'a': None}]}
    assert views.mask_secrets(info) == info
    assert views.mask_secrets(None) is None


def test_nested_secrets_are_masked_at_any_depth() -> None:
    info = {
        'redfish': {'password': 'pw', 'address': 'https://bmc'},
        'list': [{'auth_token': 't'}, 'x'],
        'url': 'https://h/x?user=u&password=pw',
        'image_url': 'https://swift/v1/o?temp_url_sig=abc&temp_url_expires=1',
    }
    assert views.mask_secrets(info) == {
        'redfish': {'password': '******', 'address': 'https://bmc'},
        'list': [{'auth_token': '******'}, 'x'],
        'url': 'https://h/x?user=u&password=******',
        'image_url': 'https://swift/v1/o?temp_url_sig=******&temp_url_'
        'expires=1',
    }
    assert info['redfish']['password'] == 'pw'


@pytest.mark.parametrize(
    'text',
    [
        'https://h/x?user=u&PASSWORD=pw',
        "{'AdminPass': 'pw'}",
        'https://h/x?Password=pw&x=1',
    ],
    ids=['upper', 'dict', 'title'],
)
def test_secrets_in_strings_are_masked_in_any_case(text: str) -> None:
    """The quick check before oslo.utils' scan ignores case as the scan
    does: every string oslo.utils would mask is masked."""
    from oslo_utils import strutils

    expected = strutils.mask_password(text, views.MASK)
    assert expected != text
    assert views.mask_secrets(text) == expected


def test_the_config_drive_is_never_shown() -> None:
    masked = views.mask_instance_info(
        {'configdrive': 'H4sI...', 'root_gb': 10}
    )
    assert masked == {'configdrive': '******', 'root_gb': 10}
    assert views.mask_instance_info(None) == {}


def test_render() -> None:
    view = views.NodeView(
        'http://h:6385',
        views.fields_at(APIVersion(1, 116)),
        conductor_of=lambda row: 'c1',
    )
    node = view.render(ROW)
    assert node['created_at'] == '2024-01-02T03:04:05.000006+00:00'
    assert node['updated_at'] is None
    assert node['driver_info']['ipmi_password'] == '******'
    assert node['conductor'] == 'c1'
    assert node['links'] == [
        {'href': f'http://h:6385/v1/nodes/{ROW["uuid"]}', 'rel': 'self'},
        {'href': f'http://h:6385/nodes/{ROW["uuid"]}', 'rel': 'bookmark'},
    ]
    assert node['states'][0]['href'].endswith('/states')
    assert 'id' not in node and 'conductor_affinity' not in node


def test_render_selected_fields() -> None:
    view = views.NodeView('http://h', ('name', 'links'))
    assert sorted(view.render(ROW)) == ['links', 'name']


def test_states() -> None:
    assert views.states(ROW, APIVersion(1, 1))['power_state'] == 'power off'


@pytest.mark.parametrize(
    'field,since',
    [
        ('inspection_started_at', (1, 6)),
        ('inspection_finished_at', (1, 6)),
        ('raid_config', (1, 12)),
        ('target_raid_config', (1, 12)),
        ('deploy_step', (1, 44)),
        ('conductor_group', (1, 46)),
        ('protected', (1, 48)),
        ('protected_reason', (1, 48)),
        ('owner', (1, 50)),
        ('retired', (1, 61)),
        ('retired_reason', (1, 61)),
        ('lessee', (1, 65)),
        ('network_data', (1, 66)),
        ('boot_mode', (1, 75)),
        ('secure_boot', (1, 75)),
        ('shard', (1, 82)),
        ('parent_node', (1, 83)),
        ('service_step', (1, 87)),
        ('disable_power_off', (1, 95)),
        ('instance_name', (1, 104)),
        ('health', (1, 109)),
    ],
)
def test_node_fields_appear_at_upstreams_version(field, since):
    major, minor = since
    assert field not in views.fields_at(APIVersion(major, minor - 1))
    assert field in views.fields_at(APIVersion(major, minor))


def test_available_is_null_below_1_2():
    row = dict(ROW, provision_state='available')
    fields = ('provision_state', 'links')
    legacy = views.legacy_states(APIVersion(1, 1))
    assert (
        views.NodeView('http://h', fields, legacy=legacy).render(row)[
            'provision_state'
        ]
        is None
    )
    assert (
        views.NodeView('http://h', fields).render(row)['provision_state']
        == 'available'
    )
    assert views.states(row, APIVersion(1, 1))['provision_state'] is None
    assert views.states(row, APIVersion(1, 2))['provision_state'] == (
        'available'
    )


def test_inspect_wait_is_inspecting_below_1_39():
    row = dict(ROW, provision_state='inspect wait')
    fields = ('provision_state', 'links')
    for minor, shown in ((38, 'inspecting'), (39, 'inspect wait')):
        version = APIVersion(1, minor)
        view = views.NodeView(
            'http://h', fields, legacy=views.legacy_states(version)
        )
        assert view.render(row)['provision_state'] == shown
        assert views.states(row, version)['provision_state'] == shown
