"""The bytes of images: one file per image in ``[image_store]directory``.

An upload streams into ``<id>.part`` (mode 0600; the directory 0700),
never whole in memory, computing the size, the MD5 ``checksum`` and the
SHA-512 ``os_hash_value`` as Glance does; only a complete upload is
renamed to ``<id>`` (after an ``fsync``), so a reader never sees half
an image and a crash leaves at most a ``.part`` file, removed by the
next upload of that image or its deletion.

The records' statuses (``queued -> saving -> active``, ``killed``) are
the callers' (:mod:`nova_lite.api.handlers.image_data`).
"""

from collections.abc import Iterator
import dataclasses
import errno
import hashlib
import os
from pathlib import Path
from typing import BinaryIO
from typing import Protocol
import uuid

#: Glance's default ``hashing_algorithm``.
HASH_ALGO = 'sha512'
CHUNK = 65536


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


@dataclasses.dataclass(frozen=True)
class Stored:
    """What an upload wrote."""

    size: int
    checksum: str
    os_hash_value: str


class OverQuota(Exception):
    """The data passed the bytes the project may still store."""

    def __init__(self, limit: int) -> None:
        super().__init__(f'{limit} bytes left')
        self.limit = limit


class Interrupted(Exception):
    """The client sent fewer bytes than it announced."""

    def __init__(self, received: int, announced: int) -> None:
        super().__init__(f'{received} of {announced} bytes received')
        self.received = received
        self.announced = announced


class StoreFull(Exception):
    """The file system of the store has no room for the data."""


class ImageStore:
    def __init__(self, directory: str) -> None:
        self.directory = Path(directory)

    def _ensure_directory(self) -> Path:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.directory, 0o700)
        return self.directory

    def path(self, image_id: str) -> Path:
        """The data file of ``image_id`` (a UUID, never a path: ValueError
        for anything else)."""
        return self.directory / str(uuid.UUID(image_id))

    def _part(self, image_id: str) -> Path:
        return self.directory / f'{uuid.UUID(image_id)}.part'

    def write(
        self,
        image_id: str,
        stream: Readable,
        limit: int | None = None,
        announced: int | None = None,
    ) -> Stored:
        """Store the data ``stream`` gives as the image's.

        :param limit: bytes the project may still store (None: no limit).
        :param announced: the request's Content-Length, when it had one.
        :raises OverQuota: the data passed ``limit``.
        :raises Interrupted: fewer bytes came than were announced.
        :raises StoreFull: the file system is full.
        """
        self._ensure_directory()
        part = self._part(image_id)
        md5 = hashlib.md5(usedforsecurity=False)
        secure = hashlib.new(HASH_ALGO)
        size = 0
        done = False
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, 'wb') as out:
                while chunk := stream.read(CHUNK):
                    size += len(chunk)
                    if limit is not None and size > limit:
                        raise OverQuota(limit)
                    md5.update(chunk)
                    secure.update(chunk)
                    out.write(chunk)
                if announced is not None and size != announced:
                    raise Interrupted(size, announced)
                out.flush()
                os.fsync(out.fileno())
            os.replace(part, self.path(image_id))
            self._sync_directory()
            done = True
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise StoreFull(str(exc)) from exc
            raise
        finally:
            if not done:
                part.unlink(missing_ok=True)
        return Stored(size, md5.hexdigest(), secure.hexdigest())

    def _sync_directory(self) -> None:
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def size(self, image_id: str) -> int | None:
        """The size of the image's data file, None without one."""
        try:
            return self.path(image_id).stat().st_size
        except FileNotFoundError:
            return None

    def read(
        self, image_id: str, start: int = 0, length: int | None = None
    ) -> Iterator[bytes]:
        """The data from ``start``, ``length`` bytes (None: to the end),
        in chunks; opened at once (FileNotFoundError now, not later)."""
        handle: BinaryIO = open(self.path(image_id), 'rb')  # noqa: SIM115

        def chunks() -> Iterator[bytes]:
            with handle:
                handle.seek(start)
                left = length
                while left is None or left > 0:
                    want = CHUNK if left is None else min(CHUNK, left)
                    chunk = handle.read(want)
                    if not chunk:
                        return
                    if left is not None:
                        left -= len(chunk)
                    yield chunk

        return chunks()

    def delete(self, image_id: str) -> None:
        """Free the image's bytes (and a leftover partial upload)."""
        self.path(image_id).unlink(missing_ok=True)
        self._part(image_id).unlink(missing_ok=True)
