"""What ``instance_info`` says of the image to deploy, checked (upstream
Ironic's fields; no I/O here: :mod:`deploy_images` fetches).

- ``image_source``: an image of the Image service (its id, or
  ``glance://<id>``), an ``http(s)://`` URL or a ``file://`` path on the
  conductor;
- ``image_os_hash_algo`` + ``image_os_hash_value``, or
  ``image_checksum`` (its algorithm known by its length: 32 hex digits
  md5, 40 sha1, 64 sha256, 128 sha512): required for a URL (the Image
  service has the image's own); optional for a ``file://`` path, whose
  hash the conductor then computes;
- ``image_disk_format``: ``raw`` or ``qcow2`` (a URL without it is
  recognised by its first bytes once the conductor has it);
- ``image_type``: ``whole-disk`` (the default; ``partition`` images,
  and ``kernel``/``ramdisk`` which imply one, are refused: this deploy
  interface writes whole disks);
- ``root_gb``: a whole number of GiB when given.
"""

import dataclasses
import re
from typing import Any
import urllib.parse

from ironic_lite import exception

DISK_FORMATS = ('raw', 'qcow2')
HASH_ALGOS = ('md5', 'sha1', 'sha256', 'sha512')
_ALGO_BY_LENGTH = {32: 'md5', 40: 'sha1', 64: 'sha256', 128: 'sha512'}
_HEX = re.compile(r'^[0-9a-fA-F]+$')
_IMAGE_ID = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$')

SERVICE = 'service'
HTTP = 'http'
FILE = 'file'


@dataclasses.dataclass(frozen=True)
class ImageSource:
    """The image of a deployment, as ``instance_info`` gives it."""

    #: ``image_source`` as given.
    source: str
    #: SERVICE, HTTP or FILE.
    kind: str
    #: The Image service's id (SERVICE), else the URL.
    image_id: str
    disk_format: str | None
    hash_algo: str | None
    hash_value: str | None

    @property
    def path(self) -> str:
        """The conductor's path of a FILE source."""
        return urllib.parse.unquote(urllib.parse.urlsplit(self.source).path)


def _invalid(node: str, reason: str) -> exception.InvalidParameterValue:
    return exception.InvalidParameterValue(
        err=f'Cannot deploy node {node}: {reason}'
    )


def _hash(node: str, info: dict[str, Any]) -> tuple[str | None, str | None]:
    algo = info.get('image_os_hash_algo')
    value = info.get('image_os_hash_value')
    if algo or value:
        if not (algo and value):
            raise _invalid(
                node,
                'instance_info image_os_hash_algo and image_os_hash_value '
                'go together',
            )
        if algo not in HASH_ALGOS:
            raise _invalid(
                node,
                f'instance_info image_os_hash_algo {algo!r} is not one of '
                f'{", ".join(HASH_ALGOS)}',
            )
        if not isinstance(value, str) or not _HEX.match(value):
            raise _invalid(
                node, 'instance_info image_os_hash_value is not hexadecimal'
            )
        return str(algo), value.lower()
    checksum = info.get('image_checksum')
    if not checksum:
        return None, None
    if (
        not isinstance(checksum, str)
        or not _HEX.match(checksum)
        or len(checksum) not in _ALGO_BY_LENGTH
    ):
        raise _invalid(
            node,
            'instance_info image_checksum must be the hexadecimal md5, '
            'sha1, sha256 or sha512 of the image (32, 40, 64 or 128 '
            'digits)',
        )
    return _ALGO_BY_LENGTH[len(checksum)], checksum.lower()


def _source(node: str, source: Any) -> tuple[str, str]:
    """(kind, image id) of ``image_source``."""
    if not isinstance(source, str) or not source.strip():
        raise exception.MissingParameterValue(
            err=f'Cannot validate image information for node {node} '
            'because one or more parameters are missing from its '
            "instance_info. Missing are: ['image_source']"
        )
    parts = urllib.parse.urlsplit(source)
    if parts.scheme in ('http', 'https'):
        if not parts.netloc:
            raise _invalid(node, f'image_source {source!r} has no host')
        return HTTP, source
    if parts.scheme == 'file':
        if not parts.path.startswith('/'):
            raise _invalid(
                node, f'image_source {source!r} is not an absolute path'
            )
        return FILE, source
    if parts.scheme == 'glance':
        source = parts.netloc or parts.path.lstrip('/')
    elif parts.scheme:
        raise _invalid(
            node,
            f'image_source {source!r}: the scheme {parts.scheme!r} is not '
            'supported (an Image service id, glance://, http(s)://, '
            'file://)',
        )
    if not _IMAGE_ID.match(source):
        raise _invalid(node, f'image_source {source!r} is no image id')
    return SERVICE, source


def parse(node: str, info: dict[str, Any]) -> ImageSource:
    """The image ``instance_info`` names, checked.

    :raises MissingParameterValue: no ``image_source``.
    :raises InvalidParameterValue: anything else wrong, with what.
    """
    kind, image_id = _source(node, info.get('image_source'))
    image_type = info.get('image_type') or 'whole-disk'
    if image_type == 'partition' or info.get('kernel') or info.get('ramdisk'):
        raise _invalid(
            node,
            'partition images (image_type partition, or kernel and '
            'ramdisk) are not supported by the agent deploy interface '
            'of ironic_lite: deploy a whole-disk image',
        )
    if image_type != 'whole-disk':
        raise _invalid(
            node,
            f'instance_info image_type {image_type!r} is not whole-disk '
            'or partition',
        )
    disk_format = info.get('image_disk_format') or None
    if disk_format is not None and disk_format not in DISK_FORMATS:
        raise _invalid(
            node,
            f'instance_info image_disk_format {disk_format!r} is not one '
            f'of {", ".join(DISK_FORMATS)}',
        )
    root_gb = info.get('root_gb')
    if root_gb not in (None, ''):
        try:
            if int(str(root_gb)) < 0:
                raise ValueError(root_gb)
        except ValueError:
            raise _invalid(
                node,
                f'instance_info root_gb {root_gb!r} is not a whole number '
                'of GiB',
            ) from None
    algo, value = _hash(node, info)
    if kind == HTTP and value is None:
        raise _invalid(
            node,
            f'image_source {image_id} is a URL: instance_info needs '
            'image_checksum or image_os_hash_algo and '
            'image_os_hash_value to verify the image with',
        )
    return ImageSource(
        source=str(info['image_source']),
        kind=kind,
        image_id=image_id,
        disk_format=disk_format,
        hash_algo=algo,
        hash_value=value,
    )
