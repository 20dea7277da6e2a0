"""The conductor's client of the Image service (Glance v2: nova_lite's
``/image`` API or upstream Glance), configured by ``[glance]``.

Only what a deployment needs: an image's record (status, formats, size,
checksum and multihash) and its data, streamed.
"""

from collections.abc import Iterator
from typing import Any

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from oslo_config import cfg

from ironic_lite import exception
from lite_common import service_client

CHUNK = 1024 * 1024


class ImageService:
    """One conductor's client (the session is made at first use and
    kept: keystoneauth renews its token)."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self._connection = service_client.Connection(
            conf, 'glance', 'image', exception.ConfigError
        )

    def _connect(self) -> tuple[ks_session.Session, str]:
        return self._connection.get()

    def _get(self, image_id: str, suffix: str = '', **kwargs: Any) -> Any:
        sess, endpoint = self._connect()
        url = f'{endpoint}/v2/images/{image_id}{suffix}'
        try:
            return sess.get(url, raise_exc=False, **kwargs)
        except ks_exc.ClientException as exc:
            raise exception.ImageDownloadFailed(
                image_href=image_id, reason=f'{url}: {exc}'
            ) from exc

    def show(self, image_id: str) -> dict[str, Any]:
        """The image's record.

        :raises ImageNotFound: no such image (or not visible).
        :raises ImageDownloadFailed: the service cannot be asked.
        """
        response = self._get(image_id)
        if response.status_code == 404:
            raise exception.ImageNotFound(image_id=image_id)
        if response.status_code != 200:
            raise exception.ImageDownloadFailed(
                image_href=image_id,
                reason=f'the Image service answered HTTP '
                f'{response.status_code}: {response.text[:300]}',
            )
        body = response.json()
        if not isinstance(body, dict):
            raise exception.ImageDownloadFailed(
                image_href=image_id, reason='the record is not an object'
            )
        return body

    def download(self, image_id: str) -> Iterator[bytes]:
        """The image's data in chunks (never whole in memory).

        :raises ImageDownloadFailed: refused, or ended early.
        """
        response = self._get(image_id, '/file', stream=True)
        if response.status_code != 200:
            text = response.text[:300]
            response.close()
            raise exception.ImageDownloadFailed(
                image_href=image_id,
                reason=f'the Image service answered HTTP '
                f'{response.status_code}: {text}',
            )
        with response:
            yield from response.iter_content(CHUNK)
