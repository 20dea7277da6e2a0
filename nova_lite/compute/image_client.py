"""A compute agent's client of the Image API (``[glance]``): what a
snapshot, a backup or a shelve (the upload) and an unshelve (the
download) need of Glance v2, as upstream Nova asks it.

The agent authenticates as itself (a service user, an htpasswd user in
``http_basic_admin_users``, or nothing against a noauth API), so it may
write the images of any project; the API checked the user's right to
make the snapshot before it cast the request.
"""

from collections.abc import Iterable
import hashlib
import os
from pathlib import Path
from typing import Any
import urllib.parse

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg
import requests

from lite_common import service_client
from nova_lite import exception

PATCH_TYPE = 'application/openstack-images-v2.1-json-patch'
#: Bytes read at a time from a download.
CHUNK = 1024 * 1024
ErrorClass = type[exception.NovaLiteException]


class ImageClient:
    """One agent's client (the session is made at first use and kept:
    keystoneauth renews its token)."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self._connection = service_client.Connection(
            conf, 'glance', 'image', exception.ConfigError
        )

    def _request(
        self,
        method: str,
        image_id: str,
        path: str,
        error: ErrorClass = exception.ImageUploadFailed,
        **kwargs: Any,
    ) -> Any:
        sess, endpoint = self._connection.get()
        url = f'{endpoint}/v2/images{path}'
        try:
            return sess.request(url, method, raise_exc=False, **kwargs)
        except ks_exc.ClientException as exc:
            raise error(
                image_id=image_id, reason=f'{method} {url}: {exc}'
            ) from exc

    @staticmethod
    def _refused(
        image_id: str,
        response: Any,
        error: ErrorClass = exception.ImageUploadFailed,
    ) -> exception.NovaLiteException:
        return error(
            image_id=image_id,
            reason=f'the Image API answered HTTP {response.status_code}: '
            f'{response.text[:300]}',
        )

    def show(self, image_id: str) -> dict[str, Any] | None:
        """The image's record; None if it is gone."""
        response = self._request('GET', image_id, f'/{image_id}')
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            raise self._refused(image_id, response)
        body: dict[str, Any] = response.json()
        return body

    def set_format(
        self, image_id: str, disk_format: str, container_format: str
    ) -> None:
        """The formats of the data about to be uploaded (a queued
        image's may change, as in Glance)."""
        response = self._request(
            'PATCH',
            image_id,
            f'/{image_id}',
            json=[
                {
                    'op': 'replace',
                    'path': '/disk_format',
                    'value': disk_format,
                },
                {
                    'op': 'replace',
                    'path': '/container_format',
                    'value': container_format,
                },
            ],
            headers={'Content-Type': PATCH_TYPE},
        )
        if response.status_code != 200:
            raise self._refused(image_id, response)

    def upload(self, image_id: str, path: Path) -> None:
        """Stream the file at ``path`` as the image's data (the API
        makes it ``active`` with its size and checksums). A file object,
        not a generator: requests then sends its ``Content-Length``
        (with a generator it would announce chunks it does not frame)."""
        with open(path, 'rb') as data:
            response = self._request(
                'PUT',
                image_id,
                f'/{image_id}/file',
                data=data,
                headers={'Content-Type': 'application/octet-stream'},
            )
        if response.status_code not in (200, 204):
            raise self._refused(image_id, response)

    def download(self, image: dict[str, Any], dest: Path) -> int:
        """Stream the data of ``image`` (its record, as :meth:`show`
        gives it) into the new file ``dest``, never whole in memory,
        blocks of zeros left as holes (a disk is mostly empty); checked
        against the record's size and hashes as Glance's clients check
        them. The size.

        :raises ImageDownloadFailed: refused, cut short or not matching
            (``dest`` may hold part of the data).
        """
        image_id = image['id']
        error = exception.ImageDownloadFailed
        response = self._request(
            'GET', image_id, f'/{image_id}/file', error, stream=True
        )
        try:
            if response.status_code != 200:
                raise self._refused(image_id, response, error)
            digests = _Digests(image)
            size = _write_sparse(response.iter_content(CHUNK), dest, digests)
        except (OSError, requests.RequestException) as exc:
            raise error(image_id=image_id, reason=str(exc)) from exc
        finally:
            response.close()
        mismatch = digests.mismatch(size)
        if mismatch:
            raise error(image_id=image_id, reason=mismatch)
        return size

    def delete(self, image_id: str) -> bool:
        """Delete the image; whether it existed."""
        response = self._request('DELETE', image_id, f'/{image_id}')
        if response.status_code == 404:
            return False
        if response.status_code != 204:
            raise self._refused(image_id, response)
        return True

    def list(self, filters: dict[str, str]) -> list[dict[str, Any]]:
        """Every image matching ``filters`` (Glance's query parameters:
        attributes and properties), newest first, all pages."""
        images: list[dict[str, Any]] = []
        params = {**filters, 'sort_key': 'created_at', 'sort_dir': 'desc'}
        while True:
            response = self._request(
                'GET', '', '?' + urllib.parse.urlencode(params)
            )
            if response.status_code != 200:
                raise self._refused('list', response)
            body = response.json()
            page = body.get('images') or []
            images.extend(page)
            if not page or 'next' not in body:
                return images
            params['marker'] = page[-1]['id']


class _Digests:
    """The hashes of a download, against those of the image's record
    (``os_hash_algo`` / ``os_hash_value``, the MD5 ``checksum``)."""

    def __init__(self, image: dict[str, Any]) -> None:
        self.image = image
        self.wanted: dict[str, str] = {}
        algo = str(image.get('os_hash_algo') or '')
        if image.get('os_hash_value') and algo in hashlib.algorithms_available:
            self.wanted[algo] = image['os_hash_value']
        if image.get('checksum'):
            self.wanted['md5'] = image['checksum']
        self.hashes = {
            name: hashlib.new(name, usedforsecurity=False)
            for name in self.wanted
        }

    def update(self, chunk: bytes) -> None:
        for digest in self.hashes.values():
            digest.update(chunk)

    def mismatch(self, size: int) -> str | None:
        """What does not match; None when all does."""
        expected = self.image.get('size')
        if expected is not None and expected != size:
            return f'{size} bytes read, the image has {expected}'
        for name, digest in self.hashes.items():
            if digest.hexdigest() != self.wanted[name]:
                return f"the data does not match the image's {name} hash"
        return None


def _write_sparse(
    chunks: Iterable[bytes], dest: Path, digests: _Digests
) -> int:
    """Write ``chunks`` into the new file ``dest``, leaving holes for
    the blocks of zeros; the size written."""
    size = 0
    zeros = bytes(CHUNK)
    with open(dest, 'xb') as out:
        for chunk in chunks:
            digests.update(chunk)
            if chunk == zeros[: len(chunk)]:
                out.seek(len(chunk), os.SEEK_CUR)
            else:
                out.write(chunk)
            size += len(chunk)
        out.truncate(size)
        out.flush()
        os.fsync(out.fileno())
    return size
