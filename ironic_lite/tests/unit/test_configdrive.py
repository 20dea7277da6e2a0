"""Config drives built from JSON (API 1.56/1.59): an ISO 9660 image
labelled config-2, read back with pycdlib (Rock Ridge and Joliet names)
and identified by util-linux's blkid, as cloud-init finds it."""

import base64
import gzip
import io
import json
import shutil
import subprocess

import pycdlib

from ironic_lite.conductor import configdrive

NODE = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'


def _read(image: bytes, name: str, joliet: bool = False) -> bytes:
    reader = pycdlib.PyCdlib()
    reader.open_fp(io.BytesIO(image))
    out = io.BytesIO()
    path = f'/openstack/latest/{name}'
    if joliet:
        reader.get_file_from_iso_fp(out, joliet_path=path)
    else:
        reader.get_file_from_iso_fp(out, rr_path=path)
    reader.close()
    return out.getvalue()


def test_the_four_documents_under_openstack_latest():
    spec = {
        'meta_data': {
            'hostname': 'web-1',
            'public_keys': {'k': 'ssh-ed25519'},
        },
        'user_data': '#cloud-config\npackages: [nginx]\n',
        'network_data': {'links': [], 'networks': [], 'services': []},
        'vendor_data': {'cloud': 'stacklite'},
    }
    packed = configdrive.build(NODE, 'node-1', spec)
    image = gzip.decompress(base64.b64decode(packed))
    assert configdrive.unpack(packed) == image
    meta = json.loads(_read(image, 'meta_data.json'))
    # The node's uuid and name where the request gives none.
    assert meta == {**spec['meta_data'], 'uuid': NODE, 'name': 'node-1'}
    assert _read(image, 'user_data') == spec['user_data'].encode()
    assert (
        json.loads(_read(image, 'network_data.json')) == spec['network_data']
    )
    assert json.loads(_read(image, 'vendor_data2.json')) == spec['vendor_data']
    assert json.loads(_read(image, 'meta_data.json', joliet=True)) == meta


def test_the_request_meta_data_wins_and_user_data_objects_are_json():
    image = configdrive.build_iso(
        NODE,
        None,
        {'meta_data': {'uuid': 'given'}, 'user_data': {'a': [1, 2]}},
    )
    assert json.loads(_read(image, 'meta_data.json')) == {'uuid': 'given'}
    assert json.loads(_read(image, 'user_data')) == {'a': [1, 2]}
    reader = pycdlib.PyCdlib()
    reader.open_fp(io.BytesIO(image))
    names = [
        child.rock_ridge.name().decode()
        for child in reader.list_children(rr_path='/openstack/latest')
        if child.rock_ridge is not None and child.is_file()
    ]
    reader.close()
    # No network or vendor data asked for: none written.
    assert sorted(names) == ['meta_data.json', 'user_data']


def test_blkid_sees_an_iso9660_filesystem_labelled_config_2(tmp_path):
    assert shutil.which('blkid'), 'blkid (util-linux) missing'
    path = tmp_path / 'drive.iso'
    path.write_bytes(configdrive.build_iso(NODE, 'n', {'meta_data': {}}))
    found = subprocess.run(
        ['blkid', '-p', '-o', 'export', str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert 'LABEL=config-2' in found
    assert 'TYPE=iso9660' in found
