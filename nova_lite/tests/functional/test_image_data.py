"""Image data through the real clients: ``openstack image create
--file`` and ``image save``, openstacksdk's ``create_image(filename=)``
and ``download_image``, against nova-lite-api on its real server; and
the files the store keeps (modes, no leftover, gone with the image).

The bytes are random and larger than a chunk (the store streams them in
64 KiB chunks), so a reassembly or offset mistake shows.
"""

import hashlib
import os
from pathlib import Path
import stat
from typing import Any

from openstack import config as os_config
from openstack import connection
import pytest

from lite_common.tests import api_servers
from lite_common.tests import integration
from nova_lite.db import api as db_api
from nova_lite.db import migration

support: Any = __import__('devstack_support')
assert integration.TOOLS.is_dir()

SIZE = 3 * 65536 + 123
USERS = {'admin': 'admin-secret', 'demo': 'demo-secret'}


@pytest.fixture(scope='module')
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp('image-data')
    htpasswd = tmp / 'htpasswd'
    support.write_htpasswd(htpasswd, USERS)
    store = tmp / 'images'
    extra = (
        f'[DEFAULT]\nhttp_basic_auth_user_file = {htpasswd}\n'
        f'[image_store]\ndirectory = {store}\n'
    )
    # (the file api_servers configures; it migrates nothing itself)
    manager = db_api.context_manager.make_new_manager()
    manager.configure(connection=f'sqlite:///{tmp}/api.sqlite')
    migration.db_sync(manager.writer.get_engine())
    manager.dispose_pool()
    with api_servers.compute_api(tmp, 'http_basic', extra) as port:
        clouds = tmp / 'clouds.yaml'
        support.write_clouds_yaml(clouds, f'http://127.0.0.1:{port}', USERS)
        data = tmp / 'disk.img'
        data.write_bytes(os.urandom(SIZE))
        yield clouds, data, store


def _digests(data: bytes) -> tuple[str, str]:
    return hashlib.md5(data).hexdigest(), hashlib.sha512(data).hexdigest()


def test_openstack_image_create_file_and_image_save(cloud, tmp_path):
    clouds, data, store = cloud
    image = support.run_openstack(
        clouds,
        'stacklite-demo',
        'image',
        'create',
        '--file',
        str(data),
        '--disk-format',
        'raw',
        '--container-format',
        'bare',
        'cli-image',
    )
    md5, sha512 = _digests(data.read_bytes())
    shown = support.run_openstack(
        clouds, 'stacklite-demo', 'image', 'show', image['id']
    )
    assert (shown['status'], shown['size'], shown['checksum']) == (
        'active',
        SIZE,
        md5,
    )
    # (the CLI shows the hash among the properties, as with Glance)
    assert shown['properties']['os_hash_algo'] == 'sha512'
    assert shown['properties']['os_hash_value'] == sha512
    saved = tmp_path / 'saved.img'
    support.run_openstack(
        clouds,
        'stacklite-demo',
        'image',
        'save',
        '--file',
        str(saved),
        image['id'],
        parse=False,
    )
    assert saved.read_bytes() == data.read_bytes()

    # The store: a 0700 directory, the 0600 file, no partial upload left.
    assert stat.S_IMODE(store.stat().st_mode) == 0o700
    kept = store / image['id']
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert kept.read_bytes() == data.read_bytes()
    assert sorted(p.name for p in store.iterdir()) == [image['id']]

    support.run_openstack(
        clouds, 'stacklite-demo', 'image', 'delete', image['id'], parse=False
    )
    assert not kept.exists()


def test_openstacksdk_create_image_from_a_file_and_download_it(cloud):
    clouds, data, _store = cloud
    region = os_config.OpenStackConfig(config_files=[str(clouds)]).get_one(
        cloud='stacklite-demo'
    )
    conn = connection.Connection(config=region)
    try:
        image = conn.create_image(
            'sdk-image',
            filename=str(data),
            disk_format='raw',
            container_format='bare',
            wait=True,
        )
        assert (image.status, image.size) == ('active', SIZE)
        # (the SDK compares the data with the Content-MD5 it is sent)
        got = conn.image.download_image(image)
        assert got.content == data.read_bytes()
        partial = conn.image.get(
            f'/images/{image.id}/file', headers={'Range': 'bytes=10-19'}
        )
        assert partial.status_code == 206
        assert partial.content == data.read_bytes()[10:20]
        conn.image.delete_image(image)
    finally:
        conn.close()


def test_a_stored_image_is_never_half_visible(cloud, tmp_path):
    """The store renames a complete upload into place: a failed one
    leaves nothing behind (here: the quota of a second store, 1 byte
    less than the data)."""
    from nova_lite.compute_api import image_data

    target = image_data.ImageStore(str(tmp_path / 'store'))
    image_id = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9'
    with open(cloud[1], 'rb') as stream:
        with pytest.raises(image_data.OverQuota):
            target.write(image_id, stream, limit=SIZE - 1)
    assert list((tmp_path / 'store').iterdir()) == []
    with open(cloud[1], 'rb') as stream:
        with pytest.raises(image_data.Interrupted):
            target.write(image_id, stream, announced=SIZE + 1)
    assert list((tmp_path / 'store').iterdir()) == []
    with open(cloud[1], 'rb') as stream:
        stored = target.write(image_id, stream, announced=SIZE)
    assert (stored.size, stored.checksum) == (
        SIZE,
        _digests(cloud[1].read_bytes())[0],
    )
    assert (
        b''.join(target.read(image_id, 5, 7)) == (cloud[1].read_bytes()[5:12])
    )
    with pytest.raises(ValueError):
        target.path('../etc/passwd')


def _glance(clouds: Path) -> Any:
    """python-glanceclient's v2 client on a keystoneauth session (the
    demo user's http_basic credentials)."""
    import glanceclient
    from keystoneauth1 import session as ks_session
    from keystoneauth1.http_basic import HTTPBasicAuth

    base = support.yaml.safe_load(clouds.read_text())['clouds'][
        'stacklite-demo'
    ]['image_endpoint_override']
    auth = HTTPBasicAuth(
        username='demo', password=USERS['demo'], endpoint=base
    )
    return glanceclient.Client(
        '2', session=ks_session.Session(auth=auth), endpoint=base
    )


def test_python_glanceclient_uploads_and_downloads(cloud, tmp_path):
    """python-glanceclient's v2 API on a keystoneauth session: upload,
    then the data, which glanceclient verifies (do_checksum) against
    the image's hash."""
    clouds, data, _store = cloud
    glance = _glance(clouds)
    image = glance.images.create(
        name='glance-image', disk_format='raw', container_format='bare'
    )
    assert image['status'] == 'queued'
    with open(data, 'rb') as stream:
        glance.images.upload(image['id'], stream, image_size=SIZE)
    shown = glance.images.get(image['id'])
    assert (shown['status'], shown['size']) == ('active', SIZE)
    got = b''.join(glance.images.data(image['id'], do_checksum=True))
    assert got == data.read_bytes()
    glance.images.delete(image['id'])


def test_python_glanceclient_reads_our_errors(cloud):
    """glanceclient sends no Accept header: errors come as webob's plain
    text, as from Glance (a JSON error made it fail with an
    AttributeError instead of raising HTTPNotFound)."""
    from glanceclient import exc as glance_exc

    clouds, _data, _store = cloud
    glance = _glance(clouds)
    missing = '5d0c6b4e-3f1a-4b2c-9d8e-7f6a5b4c3d2e'
    with pytest.raises(glance_exc.HTTPNotFound) as info:
        glance.images.get(missing)
    assert f'No image found with ID {missing}' in str(info.value)
