"""The server's copy of its image's properties (2.98) and the stored
form of scheduler hints (2.100)."""

import pytest

from nova_lite import exception
from nova_lite.compute_api import image_meta
from nova_lite.compute_api import scheduler_hints

IMAGE = {
    'id': 'i',
    'min_ram': 64,
    'min_disk': 1,
    'disk_format': 'raw',
    'container_format': None,
    'properties': {
        'hw_disk_bus': 'scsi',
        'colour': 'blue',
        'img_mappings': '[...]',
        'os_distro': 'x' * 300,
        'hw_cpu_cores': 2,
    },
}


def test_copied_as_upstream():
    copied = image_meta.copied(IMAGE, {'root_gb': 5})
    assert copied == {
        'image_hw_disk_bus': 'scsi',
        'image_colour': 'blue',
        'image_os_distro': 'x' * 255,
        'image_hw_cpu_cores': '2',
        'image_min_ram': '64',
        'image_min_disk': '5',
        'image_disk_format': 'raw',
    }


def test_shown_keeps_standard_properties_only():
    system = {
        **image_meta.copied(IMAGE, None),
        'shelved_image_id': 's',
        'image_base_image_ref': 'i',
        'image_vm_mode': None,
    }
    assert image_meta.shown(system) == {
        'hw_disk_bus': 'scsi',
        'os_distro': 'x' * 255,
        'hw_cpu_cores': '2',
    }
    assert image_meta.shown(None) == {}


def test_replaced_drops_every_old_image_key():
    old = {
        'image_hw_video_model': 'vga',
        'image_base_image_ref': 'old',
        'shelved_image_id': 's',
    }
    new = image_meta.replaced(old, {'properties': {'os_type': 'linux'}}, None)
    assert new == {'shelved_image_id': 's', 'image_os_type': 'linux'}


def test_hints_stored_as_lists_of_strings():
    assert scheduler_hints.stored(
        {
            'group': 'g',
            'same_host': ['a', 'b'],
            'n': 4,
            'flag': True,
            'query': {'k': [1]},
            'odd': [None],
        }
    ) == {
        'group': ['g'],
        'same_host': ['a', 'b'],
        'n': ['4'],
        'flag': ['True'],
        'query': ['{"k":[1]}'],
        'odd': ['null'],
    }


def test_hints_from_request_prefer_the_current_key():
    assert scheduler_hints.from_request(
        {
            'os:scheduler_hints': {'a': 1},
            'OS-SCH-HNT:scheduler_hints': {'b': 2},
        }
    ) == {'a': 1}
    assert scheduler_hints.from_request(
        {'OS-SCH-HNT:scheduler_hints': {'b': 2}}
    ) == {'b': 2}
    assert scheduler_hints.from_request({}) == {}


def test_hints_too_large_to_store_are_invalid():
    with pytest.raises(exception.Invalid, match='scheduler hints'):
        scheduler_hints.stored({'big': 'x' * 65536})
    assert (
        scheduler_hints.stored({'big': 'x' * 60000})['big'][0] == 'x' * 60000
    )
