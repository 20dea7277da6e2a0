"""instance_info's image, checked as upstream's fields say (400s that
name the field)."""

import pytest

from ironic_lite import exception
from ironic_lite.drivers import instance_image

NODE = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
IMAGE = 'a6cb4f3c-5a5a-4a0e-9b3a-1d7e25b5a5e1'
SHA256 = 'ab' * 32


def parse(**info):
    return instance_image.parse(NODE, info)


def test_an_image_service_id():
    source = parse(image_source=IMAGE)
    assert (source.kind, source.image_id) == (instance_image.SERVICE, IMAGE)
    assert source.hash_algo is None and source.disk_format is None


def test_a_glance_url_names_the_id():
    source = parse(image_source=f'glance://{IMAGE}')
    assert (source.kind, source.image_id) == (instance_image.SERVICE, IMAGE)


def test_a_url_with_its_checksum_algorithm_known_by_length():
    for value, algo in (
        ('c' * 32, 'md5'),
        ('C' * 40, 'sha1'),
        (SHA256, 'sha256'),
        ('d' * 128, 'sha512'),
    ):
        source = parse(
            image_source='https://images.example/disk.img',
            image_checksum=value,
            image_disk_format='qcow2',
        )
        assert source.kind == instance_image.HTTP
        assert (source.hash_algo, source.hash_value) == (algo, value.lower())
        assert source.disk_format == 'qcow2'


def test_a_multihash_wins_over_the_checksum():
    source = parse(
        image_source='http://h/x',
        image_checksum='c' * 32,
        image_os_hash_algo='sha512',
        image_os_hash_value='E' * 128,
    )
    assert (source.hash_algo, source.hash_value) == ('sha512', 'e' * 128)


def test_a_file_path_needs_no_hash():
    source = parse(image_source='file:///var/lib/images/a%20b.raw')
    assert source.kind == instance_image.FILE
    assert source.path == '/var/lib/images/a b.raw'
    assert source.hash_value is None


@pytest.mark.parametrize(
    ('info', 'words'),
    [
        ({'image_source': 'http://h/x'}, 'needs image_checksum'),
        (
            {'image_source': 'http://h/x', 'image_checksum': 'xyz'},
            'image_checksum must be',
        ),
        (
            {'image_source': 'http://h/x', 'image_checksum': 'a' * 33},
            'image_checksum must be',
        ),
        (
            {
                'image_source': 'http://h/x',
                'image_os_hash_algo': 'crc32',
                'image_os_hash_value': 'aa',
            },
            "image_os_hash_algo 'crc32'",
        ),
        (
            {'image_source': 'http://h/x', 'image_os_hash_algo': 'sha256'},
            'go together',
        ),
        ({'image_source': 'ftp://h/x'}, "scheme 'ftp'"),
        ({'image_source': 'http:///x'}, 'has no host'),
        ({'image_source': 'file://relative'}, 'not an absolute path'),
        ({'image_source': 'no spaces allowed'}, 'is no image id'),
        (
            {'image_source': IMAGE, 'image_disk_format': 'vmdk'},
            "image_disk_format 'vmdk'",
        ),
        (
            {'image_source': IMAGE, 'image_type': 'partition'},
            'partition image: instance_info root_gb',
        ),
        (
            {'image_source': IMAGE, 'kernel': IMAGE, 'root_gb': 0},
            'partition image: instance_info root_gb',
        ),
        ({'image_source': IMAGE, 'swap_mb': 'big'}, "swap_mb 'big'"),
        ({'image_source': IMAGE, 'ephemeral_gb': -2}, 'ephemeral_gb -2'),
        (
            {'image_source': IMAGE, 'ephemeral_format': 'ntfs'},
            "ephemeral_format 'ntfs'",
        ),
        (
            {'image_source': IMAGE, 'preserve_ephemeral': 'maybe'},
            "preserve_ephemeral 'maybe' is not a boolean",
        ),
        ({'image_source': IMAGE, 'image_type': 'iso'}, "image_type 'iso'"),
        ({'image_source': IMAGE, 'root_gb': 'ten'}, "root_gb 'ten'"),
        ({'image_source': IMAGE, 'root_gb': '-1'}, "root_gb '-1'"),
    ],
)
def test_refusals_say_what_is_wrong(info, words):
    with pytest.raises(exception.InvalidParameterValue) as caught:
        parse(**info)
    assert words in str(caught.value)
    assert NODE in str(caught.value)
    assert caught.value.code == 400


@pytest.mark.parametrize('source', [None, '', '   ', 42])
def test_no_image_source_is_a_missing_parameter(source):
    info = {} if source is None else {'image_source': source}
    with pytest.raises(exception.MissingParameterValue) as caught:
        instance_image.parse(NODE, info)
    assert "Missing are: ['image_source']" in str(caught.value)


def test_root_gb_as_nova_sends_it():
    assert parse(image_source=IMAGE, root_gb='10').kind == 'service'


def test_a_partition_image_and_its_layout():
    source = parse(
        image_source=IMAGE,
        image_type='partition',
        root_gb='10',
        swap_mb=512,
        ephemeral_gb='2',
        preserve_ephemeral='true',
    )
    assert source.image_type == instance_image.PARTITION
    assert source.partition_layout(NODE) == {
        'image_type': 'partition',
        'root_mb': 10240,
        'swap_mb': 512,
        'ephemeral_mb': 2048,
        'ephemeral_format': 'ext4',
        'preserve_ephemeral': True,
    }


def test_kernel_and_ramdisk_imply_a_partition_image():
    source = parse(
        image_source='http://host/root.img',
        image_checksum=SHA256,
        kernel='http://host/vmlinuz',
        ramdisk='http://host/initrd',
        root_gb=4,
    )
    assert source.image_type == instance_image.PARTITION


def test_the_image_service_decides_when_instance_info_does_not():
    assert parse(image_source=IMAGE).image_type is None
    assert parse(
        image_source='http://host/disk.img', image_checksum=SHA256
    ).image_type == (instance_image.WHOLE_DISK)
    image_type_of = instance_image.image_type_of
    assert image_type_of({'kernel_id': 'k', 'ramdisk_id': 'r'}) == 'partition'
    assert image_type_of({'kernel_id': 'k'}) == 'whole-disk'
    assert image_type_of({'img_type': 'partition'}) == 'partition'
    assert image_type_of({}) == 'whole-disk'
