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
- ``image_type``: ``whole-disk`` or ``partition`` (``kernel`` and
  ``ramdisk`` imply a partition image, as upstream); unset, an Image
  service image is a partition image when it has ``kernel_id`` and
  ``ramdisk_id`` properties (or ``img_type`` says so), anything else
  whole-disk;
- ``root_gb``: a whole number of GiB when given; required by a partition
  image (the size of its root partition);
- a partition image's other partitions: ``swap_mb``, ``ephemeral_gb``
  (whole numbers), ``ephemeral_format`` (``ext2``, ``ext3``, ``ext4``
  or ``vfat``; ``[deploy]default_ephemeral_format``) and
  ``preserve_ephemeral`` (a boolean: a rebuild keeps the ephemeral
  partition).
"""

import dataclasses
import re
from typing import Any
import urllib.parse

from oslo_utils import strutils

from ironic_lite import exception

DISK_FORMATS = ('raw', 'qcow2')
IMAGE_TYPES = ('whole-disk', 'partition')
EPHEMERAL_FORMATS = ('ext2', 'ext3', 'ext4', 'vfat')
WHOLE_DISK, PARTITION = IMAGE_TYPES
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
    #: WHOLE_DISK, PARTITION, or None: the Image service's record
    #: decides (:func:`image_type_of`).
    image_type: str | None = None
    root_gb: int | None = None
    swap_mb: int = 0
    ephemeral_gb: int = 0
    ephemeral_format: str | None = None
    preserve_ephemeral: bool = False

    def partition_layout(self, node: str) -> dict[str, Any]:
        """The ``image_info`` fields of a partition image (upstream's).

        :raises InvalidParameterValue: no ``root_gb``.
        """
        if not self.root_gb:
            raise _invalid(
                node,
                f'image {self.image_id} is a partition image: instance_info '
                'root_gb (the GiB of its root partition, at least 1) is '
                'required',
            )
        return {
            'image_type': PARTITION,
            'root_mb': self.root_gb * 1024,
            'swap_mb': self.swap_mb,
            'ephemeral_mb': self.ephemeral_gb * 1024,
            'ephemeral_format': self.ephemeral_format,
            'preserve_ephemeral': self.preserve_ephemeral,
        }

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


def _whole(node: str, info: dict[str, Any], key: str, unit: str) -> int:
    """A whole number >= 0 of ``info`` (0 when unset)."""
    value = info.get(key)
    if value in (None, ''):
        return 0
    try:
        number = int(str(value))
        if number < 0:
            raise ValueError(value)
    except ValueError:
        raise _invalid(
            node,
            f'instance_info {key} {value!r} is not a whole number of {unit}',
        ) from None
    return number


def _image_type(node: str, info: dict[str, Any], kind: str) -> str | None:
    image_type = info.get('image_type')
    if image_type in (None, ''):
        if info.get('kernel') or info.get('ramdisk'):
            return PARTITION
        return None if kind == SERVICE else WHOLE_DISK
    if image_type not in IMAGE_TYPES:
        raise _invalid(
            node,
            f'instance_info image_type {image_type!r} is not whole-disk '
            'or partition',
        )
    return str(image_type)


def image_type_of(record: dict[str, Any]) -> str:
    """The type of an Image service image, as upstream tells it: a
    partition image has a kernel and a ramdisk (or says so in
    ``img_type``)."""
    if record.get('img_type') in IMAGE_TYPES:
        return str(record['img_type'])
    if record.get('kernel_id') and record.get('ramdisk_id'):
        return PARTITION
    return WHOLE_DISK


def parse(
    node: str, info: dict[str, Any], default_ephemeral_format: str = 'ext4'
) -> ImageSource:
    """The image ``instance_info`` names, checked.

    :raises MissingParameterValue: no ``image_source``.
    :raises InvalidParameterValue: anything else wrong, with what.
    """
    kind, image_id = _source(node, info.get('image_source'))
    image_type = _image_type(node, info, kind)
    disk_format = info.get('image_disk_format') or None
    if disk_format is not None and disk_format not in DISK_FORMATS:
        raise _invalid(
            node,
            f'instance_info image_disk_format {disk_format!r} is not one '
            f'of {", ".join(DISK_FORMATS)}',
        )
    root_gb = _whole(node, info, 'root_gb', 'GiB')
    ephemeral_format = info.get('ephemeral_format') or default_ephemeral_format
    if ephemeral_format not in EPHEMERAL_FORMATS:
        raise _invalid(
            node,
            f'instance_info ephemeral_format {ephemeral_format!r} is not one '
            f'of {", ".join(EPHEMERAL_FORMATS)}',
        )
    try:
        preserve = strutils.bool_from_string(
            info.get('preserve_ephemeral') or False, strict=True
        )
    except ValueError:
        raise _invalid(
            node,
            f'instance_info preserve_ephemeral '
            f'{info.get("preserve_ephemeral")!r} is not a boolean',
        ) from None
    algo, value = _hash(node, info)
    if kind == HTTP and value is None:
        raise _invalid(
            node,
            f'image_source {image_id} is a URL: instance_info needs '
            'image_checksum or image_os_hash_algo and '
            'image_os_hash_value to verify the image with',
        )
    source = ImageSource(
        source=str(info['image_source']),
        kind=kind,
        image_id=image_id,
        disk_format=disk_format,
        hash_algo=algo,
        hash_value=value,
        image_type=image_type,
        root_gb=root_gb or None,
        swap_mb=_whole(node, info, 'swap_mb', 'MiB'),
        ephemeral_gb=_whole(node, info, 'ephemeral_gb', 'GiB'),
        ephemeral_format=str(ephemeral_format),
        preserve_ephemeral=preserve,
    )
    if image_type == PARTITION:
        source.partition_layout(node)
    return source
