"""Config drives built from JSON (API 1.56, vendor_data from 1.59), as
upstream's ``build_configdrive``: an ISO 9660 image labelled
``config-2`` (Rock Ridge and Joliet names, as ``genisoimage -r -J``
writes them) holding ``openstack/latest/meta_data.json`` (with the
node's ``uuid`` and ``name`` when the request gives none),
``user_data`` (bytes as given, JSON when it is an object or a list),
``network_data.json`` and ``vendor_data2.json``; stored gzipped and
base64-encoded in ``instance_info['configdrive']``, the form a client
may send ready-made. Built in the conductor with pycdlib (pure Python:
no ISO tool on the host).
"""

import base64
import gzip
import io
import json
from typing import Any

import pycdlib

LABEL = 'config-2'
#: The directory cloud-init and Glean read.
VERSION_DIR = 'openstack/latest'


def _files(
    node_uuid: str, node_name: str | None, spec: dict[str, Any]
) -> dict[str, bytes]:
    meta_data = dict(spec.get('meta_data') or {})
    meta_data.setdefault('uuid', node_uuid)
    if node_name:
        meta_data.setdefault('name', node_name)
    files = {'meta_data.json': json.dumps(meta_data).encode()}
    user_data = spec.get('user_data')
    if isinstance(user_data, (dict, list)):
        files['user_data'] = json.dumps(user_data).encode()
    elif user_data:
        files['user_data'] = str(user_data).encode()
    if spec.get('network_data'):
        files['network_data.json'] = json.dumps(spec['network_data']).encode()
    if spec.get('vendor_data'):
        files['vendor_data2.json'] = json.dumps(spec['vendor_data']).encode()
    return files


def _iso_name(name: str) -> str:
    """An ISO 9660 level-3 name of ``name`` (the Rock Ridge and Joliet
    names are the real ones)."""
    stem, dot, ext = name.upper().replace('-', '_').partition('.')
    return f'{stem[:8]}{dot}{ext[:3]};1' if dot else f'{stem[:8]};1'


def _iso_path(names: list[str]) -> str:
    return '/' + '/'.join(name.upper()[:8] for name in names)


def build_iso(
    node_uuid: str, node_name: str | None, spec: dict[str, Any]
) -> bytes:
    """The ISO 9660 image of a config drive request ``spec``
    (``meta_data``, ``user_data``, ``network_data``, ``vendor_data``)."""
    iso = pycdlib.PyCdlib()
    iso.new(
        interchange_level=3,
        vol_ident=LABEL,
        rock_ridge='1.09',
        joliet=3,
        sys_ident='LINUX',
        pub_ident_str='ironic-lite',
    )
    parts = VERSION_DIR.split('/')
    for depth in range(1, len(parts) + 1):
        names = parts[:depth]
        iso.add_directory(
            _iso_path(names),
            rr_name=names[-1],
            joliet_path='/' + '/'.join(names),
        )
    directory = _iso_path(parts)
    for name, data in sorted(_files(node_uuid, node_name, spec).items()):
        iso.add_fp(
            io.BytesIO(data),
            len(data),
            f'{directory}/{_iso_name(name)}',
            rr_name=name,
            joliet_path=f'/{VERSION_DIR}/{name}',
        )
    out = io.BytesIO()
    iso.write_fp(out)
    iso.close()
    return out.getvalue()


def pack(image: bytes) -> str:
    """gzip, then base64: the form ``instance_info['configdrive']``
    keeps (and a client may send)."""
    return base64.b64encode(gzip.compress(image, mtime=0)).decode()


def unpack(value: str) -> bytes:
    """The ISO image of a packed config drive."""
    return gzip.decompress(base64.b64decode(value))


def build(node_uuid: str, node_name: str | None, spec: dict[str, Any]) -> str:
    """The packed config drive of ``spec``."""
    return pack(build_iso(node_uuid, node_name, spec))
