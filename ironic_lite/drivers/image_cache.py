"""The conductor's master image cache (upstream's ``image_download_source
= local``): every image a node deploys is downloaded once into a local
directory, verified against its hash, and served to the ramdisk agents
from there (:mod:`ironic_lite.drivers.image_server`).

A file is named by the sha256 of the caller's key and of the hash it was
verified against, so a name on disk always means "these bytes matched
this hash". A download streams into ``<name>.part`` and is renamed only
once verified and synced: a crash leaves a ``.part`` (removed at the next
start), never a wrong image under a final name.

Images the caller holds (from :meth:`ImageCache.fetch` until
:meth:`ImageCache.release`) are never evicted; the others go least
recently used first once the cache holds more than ``max_bytes``. One
process owns a cache directory (the conductor); its threads share one
:class:`ImageCache`.
"""

from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
import contextlib
import dataclasses
import hashlib
import os
from pathlib import Path
import re
import threading
from typing import BinaryIO

from oslo_log import log as logging

from ironic_lite import exception

LOG = logging.getLogger(__name__)

HASH_ALGOS = ('md5', 'sha1', 'sha256', 'sha512')
PART_SUFFIX = '.part'
_NAME = re.compile(r'[0-9a-f]{64}')

Download = Callable[[], Iterable[bytes]]


class ImageCacheError(exception.IronicLiteException):
    """An image could not be put into the cache (a deployment fails
    with its message)."""


class ImageChecksumMismatch(ImageCacheError):
    """The downloaded bytes do not match the expected hash."""


class ImageFetchError(ImageCacheError):
    """The download failed, or brought more or fewer bytes than expected."""


@dataclasses.dataclass(frozen=True)
class CachedImage:
    """A verified image in the cache, held until released."""

    path: Path
    size: int
    hash_algo: str
    hash_value: str
    key: str


@dataclasses.dataclass
class _Entry:
    size: int
    users: int = 0


def cache_name(key: str, hash_algo: str, hash_value: str) -> str:
    """The file name of ``key`` verified against the hash: hex only, so no
    key can name a path outside the cache."""
    identity = f'{key}\n{hash_algo}:{hash_value.lower()}'
    return hashlib.sha256(identity.encode('utf-8')).hexdigest()


class ImageCache:
    """A directory of verified images, least recently used evicted first.

    ``max_bytes`` 0 means no limit.
    """

    def __init__(self, directory: Path, max_bytes: int) -> None:
        if max_bytes < 0:
            raise ValueError(f'max_bytes must be >= 0, not {max_bytes}')
        self.directory = Path(directory)
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        # Least recently used first.
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._downloads: dict[str, threading.Event] = {}
        self._total = 0
        self._prepare_directory()
        self._load_entries()
        with self._lock:
            self._evict()

    @property
    def total_bytes(self) -> int:
        """Bytes of the cached (finished) files."""
        with self._lock:
            return self._total

    def _prepare_directory(self) -> None:
        if not self.directory.is_dir():
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.directory.chmod(0o700)
        for part in self.directory.glob(f'*{PART_SUFFIX}'):
            LOG.info('Removing the unfinished image download %s', part)
            part.unlink(missing_ok=True)

    def _load_entries(self) -> None:
        found = []
        for path in self.directory.iterdir():
            if not _NAME.fullmatch(path.name) or not path.is_file():
                continue
            stat = path.stat()
            found.append((stat.st_mtime, path.name, stat.st_size))
        for _mtime, name, size in sorted(found):
            self._entries[name] = _Entry(size=size)
            self._total += size
        if found:
            LOG.info(
                'Image cache %s holds %d images (%d bytes)',
                self.directory,
                len(found),
                self._total,
            )

    def fetch(
        self,
        key: str,
        hash_algo: str,
        hash_value: str,
        download: Download,
        size: int | None = None,
    ) -> CachedImage:
        """The image of ``key``, downloaded with ``download()`` unless it
        is cached, verified against ``hash_algo``/``hash_value``; held
        (never evicted) until :meth:`release`.

        Threads fetching one image at once download it once: the others
        wait and share the result; if the download failed, the next
        waiter tries again.
        """
        if hash_algo not in HASH_ALGOS:
            raise ImageCacheError(
                f'Image {key}: unsupported hash algorithm {hash_algo!r} '
                f'(supported: {", ".join(HASH_ALGOS)})'
            )
        hash_value = hash_value.lower()
        name = cache_name(key, hash_algo, hash_value)
        while True:
            with self._lock:
                size_held = self._hold(name, key)
                if size_held is not None:
                    return CachedImage(
                        self.directory / name,
                        size_held,
                        hash_algo,
                        hash_value,
                        key,
                    )
                pending = self._downloads.get(name)
                if pending is None:
                    pending = self._downloads[name] = threading.Event()
                    break
            LOG.debug('Image %s: waiting for its download', key)
            pending.wait()
        try:
            return self._download(
                name, key, hash_algo, hash_value, download, size
            )
        finally:
            with self._lock:
                del self._downloads[name]
            pending.set()

    def _hold(self, name: str, key: str) -> int | None:
        """Take a use of a cached file and refresh its last use (the
        lock is held); None if it is not cached."""
        entry = self._entries.get(name)
        if entry is None:
            return None
        try:
            os.utime(self.directory / name)
        except FileNotFoundError:
            LOG.warning('Image %s: its cached file has gone', key)
            self._forget(name)
            return None
        entry.users += 1
        self._entries.move_to_end(name)
        LOG.debug('Image %s: cached as %s', key, name)
        return entry.size

    def _download(
        self,
        name: str,
        key: str,
        hash_algo: str,
        hash_value: str,
        download: Download,
        size: int | None,
    ) -> CachedImage:
        part = self.directory / f'{name}{PART_SUFFIX}'
        LOG.info('Image %s: downloading into the cache', key)
        try:
            written = _write_verified(
                part, key, hash_algo, hash_value, download, size
            )
            os.replace(part, self.directory / name)
            _sync_directory(self.directory)
        except OSError as exc:
            part.unlink(missing_ok=True)
            raise ImageFetchError(
                f'Image {key}: cannot write it into {self.directory}: {exc}'
            ) from exc
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        with self._lock:
            self._entries[name] = _Entry(size=written, users=1)
            self._total += written
            self._evict()
        if self.max_bytes and written > self.max_bytes:
            LOG.warning(
                'Image %s (%d bytes) is larger than the whole image '
                'cache (%d bytes): it is evicted once released',
                key,
                written,
                self.max_bytes,
            )
        LOG.info('Image %s: cached, %d bytes', key, written)
        return CachedImage(
            self.directory / name, written, hash_algo, hash_value, key
        )

    def release(self, image: CachedImage) -> None:
        """Give back a use taken by :meth:`fetch`; the image may be
        evicted once nobody uses it."""
        name = image.path.name
        with self._lock:
            entry = self._entries.get(name)
            if entry is None or entry.users <= 0:
                raise ValueError(f'Image {image.key} is not in use')
            entry.users -= 1
            self._evict()

    @contextlib.contextmanager
    def using(
        self,
        key: str,
        hash_algo: str,
        hash_value: str,
        download: Download,
        size: int | None = None,
    ) -> Iterator[CachedImage]:
        """:meth:`fetch` for the time of a ``with`` block."""
        image = self.fetch(key, hash_algo, hash_value, download, size)
        try:
            yield image
        finally:
            self.release(image)

    def _evict(self) -> None:
        """Delete least recently used unused files while the cache is over
        its size (the lock is held)."""
        if not self.max_bytes:
            return
        while self._total > self.max_bytes:
            victim = next(
                (n for n, e in self._entries.items() if not e.users), None
            )
            if victim is None:
                return
            LOG.info(
                'Evicting cached image %s (%d bytes) from %s',
                victim,
                self._entries[victim].size,
                self.directory,
            )
            try:
                (self.directory / victim).unlink(missing_ok=True)
            except OSError as exc:
                LOG.warning('Cannot delete cached image %s: %s', victim, exc)
            self._forget(victim)

    def _forget(self, name: str) -> None:
        entry = self._entries.pop(name)
        self._total -= entry.size


def _write_verified(
    part: Path,
    key: str,
    hash_algo: str,
    hash_value: str,
    download: Download,
    size: int | None,
) -> int:
    """Stream ``download()`` into ``part`` (0600, synced); the byte count
    if it is ``size`` (when given) and matches the hash."""
    hasher = hashlib.new(hash_algo)
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, 'wb') as out:
        os.fchmod(out.fileno(), 0o600)
        try:
            written = _stream(download, hasher, out, size)
        except ImageCacheError:
            raise
        except Exception as exc:
            raise ImageFetchError(
                f'Image {key}: download failed: {type(exc).__name__}: {exc}'
            ) from exc
        _check_size(key, written, size)
        actual = hasher.hexdigest()
        if actual != hash_value:
            raise ImageChecksumMismatch(
                f'Image {key} failed to verify against its {hash_algo} '
                f'checksum: expected {hash_value}, got {actual}'
            )
        out.flush()
        os.fsync(out.fileno())
    return written


def _stream(
    download: Download,
    hasher: 'hashlib._Hash',
    out: BinaryIO,
    size: int | None,
) -> int:
    """Write and hash the chunks; stop once past ``size``."""
    written = 0
    chunks = download()
    try:
        for chunk in chunks:
            hasher.update(chunk)
            out.write(chunk)
            written += len(chunk)
            if size is not None and written > size:
                break
    finally:
        close = getattr(chunks, 'close', None)
        if callable(close):
            close()
    return written


def _check_size(key: str, written: int, size: int | None) -> None:
    if size is None or written == size:
        return
    if written > size:
        raise ImageFetchError(
            f'Image {key}: download too long: more than {size} bytes'
        )
    raise ImageFetchError(
        f'Image {key}: short download: got {written} of {size} bytes'
    )


def _sync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
