"""The image a node's agent writes, made ready by its conductor.

:func:`stage` turns the checked ``instance_info``
(:mod:`instance_image`) into ``standby.prepare_image``'s ``image_info``:

- an Image service image must be ``active`` (it has its data) in a
  format the agent writes; its hash is the service's (``os_hash_algo``/
  ``os_hash_value``, else the MD5 ``checksum``);
- the conductor fetches the image into its cache once
  (:mod:`image_cache`: concurrent deployments of one image download it
  once, it is verified against its hash before any agent sees it) and
  publishes it on its image server (:mod:`image_server`, ``[deploy]
  http_url``): the agent downloads it from there and verifies it again;
- with ``[deploy]image_download_source = http`` an ``http(s)://``
  image_source goes to the agent as it is (the agent downloads it and
  verifies the hash ``instance_info`` gives);
- a partition image (``instance_info`` says so, or the Image service's
  record: :func:`instance_image.image_type_of`) adds upstream's layout
  fields (``root_mb``, ``swap_mb``, ``ephemeral_mb``,
  ``ephemeral_format``, ``preserve_ephemeral``) and the node's
  ``deploy_boot_mode`` and ``disk_label``.

A staged image stays published and protected from eviction until
:func:`release` (the agent finished, failed, or the deployment ended).
"""

from collections.abc import Iterator
import dataclasses
import hashlib
from pathlib import Path
import threading
from typing import Any
import urllib.request

from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.drivers import image_cache
from ironic_lite.drivers import image_server
from ironic_lite.drivers import image_service
from ironic_lite.drivers import instance_image
from ironic_lite.drivers.instance_image import ImageSource

LOG = logging.getLogger(__name__)

CHUNK = 1024 * 1024
#: Seconds a URL download may stay silent.
DOWNLOAD_TIMEOUT = 60
_QCOW2_MAGIC = b'QFI\xfb'


@dataclasses.dataclass(frozen=True)
class Staged:
    """What the agent is sent, and what to release afterwards."""

    image_info: dict[str, Any]
    url: str | None = None
    cached: image_cache.CachedImage | None = None
    #: Where ``cached`` is held and ``url`` published.
    cache: image_cache.ImageCache | None = None
    server: image_server.ImageServer | None = None


_staged: dict[str, Staged] = {}
_lock = threading.Lock()


def _image_info(
    source: ImageSource,
    url: str,
    disk_format: str,
    algo: str,
    value: str,
) -> dict[str, Any]:
    info = {
        'id': source.image_id,
        'urls': [url],
        'disk_format': disk_format,
        'container_format': 'bare',
        'os_hash_algo': algo,
        'os_hash_value': value,
        'image_type': 'whole-disk-image',
    }
    if algo == 'md5':
        info['checksum'] = value
    return info


def _url_chunks(url: str) -> Iterator[bytes]:
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:  # noqa: S310 (http(s) checked)
        while chunk := response.read(CHUNK):
            yield chunk


def _file_chunks(path: Path) -> Iterator[bytes]:
    with path.open('rb') as data:
        while chunk := data.read(CHUNK):
            yield chunk


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    for chunk in _file_chunks(path):
        digest.update(chunk)
    return digest.hexdigest()


def detect_format(path: Path) -> str:
    """``qcow2`` when the file starts like one, else ``raw``."""
    with path.open('rb') as data:
        return 'qcow2' if data.read(4) == _QCOW2_MAGIC else 'raw'


def _service_image(
    service: image_service.ImageService, source: ImageSource
) -> tuple[str | None, str, str, int | None, str]:
    """(disk format, algo, hash, size, image type) of an Image service
    image.

    :raises ImageUnacceptable: not active, a format the agent does not
        write, or no hash.
    """
    record = service.show(source.image_id)
    status = record.get('status')
    if status != 'active':
        raise exception.ImageUnacceptable(
            image_id=source.image_id,
            reason=f'its status is {status}, not active (upload its data '
            'first)',
        )
    disk_format = record.get('disk_format')
    if disk_format not in instance_image.DISK_FORMATS:
        raise exception.ImageUnacceptable(
            image_id=source.image_id,
            reason=f'disk_format {disk_format} is not one of '
            f'{", ".join(instance_image.DISK_FORMATS)}',
        )
    algo, value = record.get('os_hash_algo'), record.get('os_hash_value')
    if not (algo in instance_image.HASH_ALGOS and value):
        algo, value = 'md5', record.get('checksum')
    if not value:
        raise exception.ImageUnacceptable(
            image_id=source.image_id, reason='it has no checksum'
        )
    size = record.get('size')
    return (
        source.disk_format or disk_format,
        str(algo),
        str(value).lower(),
        int(size) if isinstance(size, int) else None,
        source.image_type or instance_image.image_type_of(record),
    )


def _fetch(
    conf: cfg.ConfigOpts,
    service: image_service.ImageService,
    source: ImageSource,
) -> tuple[image_cache.CachedImage, str | None, str]:
    """The image in this conductor's cache, its format if known, and
    its type (whole-disk or partition)."""
    cache, _server = image_server.shared(conf)
    image_type = source.image_type or instance_image.WHOLE_DISK
    if source.kind == instance_image.SERVICE:
        disk_format, algo, value, size, image_type = _service_image(
            service, source
        )
        key = f'image:{source.image_id}:{algo}:{value}'
        image_id = source.image_id
        cached = cache.fetch(
            key, algo, value, lambda: service.download(image_id), size
        )
        return cached, disk_format, image_type
    assert source.hash_algo is not None or source.kind == instance_image.FILE
    if source.kind == instance_image.HTTP:
        assert source.hash_algo and source.hash_value
        key = f'url:{source.source}:{source.hash_algo}:{source.hash_value}'
        url = source.source
        cached = cache.fetch(
            key, source.hash_algo, source.hash_value, lambda: _url_chunks(url)
        )
        return cached, source.disk_format, image_type
    path = Path(source.path)
    if not path.is_file():
        raise exception.ImageUnacceptable(
            image_id=source.source,
            reason=f'{path} is not a file on conductor {conf.host}',
        )
    if source.hash_algo is None or source.hash_value is None:
        algo, value = 'sha256', _file_hash(path)
    else:
        algo, value = source.hash_algo, source.hash_value
    stat = path.stat()
    key = f'file:{path}:{stat.st_mtime_ns}:{stat.st_size}:{algo}:{value}'
    cached = cache.fetch(
        key, algo, value, lambda: _file_chunks(path), stat.st_size
    )
    return cached, source.disk_format, image_type


def _with_layout(
    info: dict[str, Any],
    node_uuid: str,
    source: ImageSource,
    image_type: str,
    boot: dict[str, Any],
) -> dict[str, Any]:
    """``info`` with a partition image's layout and the node's ``boot``
    fields (``deploy_boot_mode``, ``disk_label``).

    :raises InvalidParameterValue: a partition image without root_gb.
    """
    if image_type != instance_image.PARTITION:
        return info
    return {
        **info,
        **source.partition_layout(node_uuid),
        **boot,
        'node_uuid': node_uuid,
    }


def stage(
    conf: cfg.ConfigOpts,
    service: image_service.ImageService,
    node_uuid: str,
    source: ImageSource,
    boot: dict[str, Any] | None = None,
) -> Staged:
    """The ``image_info`` of the node's agent; the image published until
    :func:`release` (a previous staging of the node is released).
    ``boot``: the node's ``deploy_boot_mode`` and ``disk_label``, for a
    partition image.

    :raises ImageNotFound, ImageUnacceptable, ImageDownloadFailed:
    :raises ImageCacheError: the download did not verify.
    """
    release(node_uuid)
    if (
        source.kind == instance_image.HTTP
        and conf.deploy.image_download_source == 'http'
    ):
        assert source.hash_algo and source.hash_value
        info = _image_info(
            source,
            source.source,
            source.disk_format or 'raw',
            source.hash_algo,
            source.hash_value,
        )
        image_type = source.image_type or instance_image.WHOLE_DISK
        return Staged(
            _with_layout(info, node_uuid, source, image_type, boot or {})
        )
    cached, disk_format, image_type = _fetch(conf, service, source)
    cache, server = image_server.shared(conf)
    try:
        layout = _with_layout({}, node_uuid, source, image_type, boot or {})
        url = server.publish(cached.path)
    except Exception:
        cache.release(cached)
        raise
    staged = Staged(
        _image_info(
            source,
            url,
            disk_format or detect_format(cached.path),
            cached.hash_algo,
            cached.hash_value,
        )
        | layout,
        url,
        cached,
        cache,
        server,
    )
    with _lock:
        _staged[node_uuid] = staged
    LOG.info(
        'Node %(node)s: image %(image)s (%(size)d bytes, %(format)s) '
        'served to its agent at %(url)s',
        {
            'node': node_uuid,
            'image': source.image_id,
            'size': cached.size,
            'format': staged.image_info['disk_format'],
            'url': url,
        },
    )
    return staged


def release(node_uuid: str) -> None:
    """The node's agent no longer needs its image (safe to repeat)."""
    with _lock:
        staged = _staged.pop(node_uuid, None)
    if staged is None:
        return
    if staged.server is not None and staged.url is not None:
        staged.server.unpublish(staged.url)
    if staged.cache is not None and staged.cached is not None:
        staged.cache.release(staged.cached)
