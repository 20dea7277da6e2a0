"""The conductor's image cache: real files, real threads."""

from collections.abc import Callable
from collections.abc import Iterator
import hashlib
import os
from pathlib import Path
import stat
import threading
import time

import pytest

from ironic_lite.drivers import image_cache
from ironic_lite.drivers.image_cache import ImageCache


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Source:
    """A download of ``data`` in chunks that counts its calls; ``gate``
    (when set) holds every download until it is set."""

    def __init__(
        self,
        data: bytes,
        chunk: int = 1000,
        gate: threading.Event | None = None,
    ) -> None:
        self.data = data
        self.chunk = chunk
        self.gate = gate
        self.calls = 0
        self.active = 0
        self.most_active = 0
        self._lock = threading.Lock()

    def __call__(self) -> Iterator[bytes]:
        with self._lock:
            self.calls += 1
        return self._chunks()

    def _chunks(self) -> Iterator[bytes]:
        with self._lock:
            self.active += 1
            self.most_active = max(self.most_active, self.active)
        try:
            if self.gate is not None:
                assert self.gate.wait(10)
            for start in range(0, len(self.data), self.chunk):
                yield self.data[start : start + self.chunk]
        finally:
            with self._lock:
                self.active -= 1


def failing(after: bytes) -> Callable[[], Iterator[bytes]]:
    def download() -> Iterator[bytes]:
        yield after
        raise ConnectionError('the image service went away')

    return download


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / 'cache'


def test_a_download_matching_its_hash_is_cached(cache_dir):
    data = os.urandom(10_000)
    source = Source(data)
    cache = ImageCache(cache_dir, 0)
    image = cache.fetch('image:1', 'sha256', sha256(data), source)
    assert image.path.read_bytes() == data
    assert image.size == len(data)
    assert (image.hash_algo, image.hash_value) == ('sha256', sha256(data))
    assert image.key == 'image:1'
    assert image.path.parent == cache_dir
    assert leftovers(cache_dir) == [image.path.name]


def test_a_cached_image_is_not_downloaded_again(cache_dir):
    data = b'x' * 5000
    source = Source(data)
    cache = ImageCache(cache_dir, 0)
    first = cache.fetch(
        'image:1', 'md5', hashlib.md5(data).hexdigest(), source
    )
    again = cache.fetch(
        'image:1', 'md5', hashlib.md5(data).hexdigest().upper(), source
    )
    assert source.calls == 1
    assert again.path == first.path


@pytest.mark.parametrize('algo', ['md5', 'sha1', 'sha256', 'sha512'])
def test_every_supported_hash_algorithm_verifies(cache_dir, algo):
    data = b'image bytes' * 100
    expected = hashlib.new(algo, data).hexdigest()
    image = ImageCache(cache_dir, 0).fetch('k', algo, expected, Source(data))
    assert image.path.read_bytes() == data


def test_an_unsupported_hash_algorithm_is_refused_before_downloading(
    cache_dir,
):
    source = Source(b'data')
    with pytest.raises(image_cache.ImageCacheError, match='sha3_256'):
        ImageCache(cache_dir, 0).fetch('k', 'sha3_256', 'ab', source)
    assert source.calls == 0


def test_a_checksum_mismatch_names_key_and_both_hashes_and_leaves_nothing(
    cache_dir,
):
    data = b'the real bytes'
    wrong = sha256(b'other bytes')
    cache = ImageCache(cache_dir, 0)
    with pytest.raises(image_cache.ImageChecksumMismatch) as caught:
        cache.fetch('image:bad', 'sha256', wrong, Source(data))
    message = str(caught.value)
    assert 'image:bad' in message
    assert wrong in message
    assert sha256(data) in message
    assert leftovers(cache_dir) == []
    assert cache.total_bytes == 0


def test_a_short_download_fails_and_leaves_nothing(cache_dir):
    data = b'y' * 900
    cache = ImageCache(cache_dir, 0)
    with pytest.raises(
        image_cache.ImageFetchError,
        match='short download: got 900 of 1000 bytes',
    ):
        cache.fetch('image:s', 'sha256', sha256(data), Source(data), 1000)
    assert leftovers(cache_dir) == []


def test_a_download_longer_than_its_size_fails(cache_dir):
    data = b'y' * 5000
    with pytest.raises(image_cache.ImageFetchError, match='too long'):
        ImageCache(cache_dir, 0).fetch(
            'image:l', 'sha256', sha256(data), Source(data), 1000
        )
    assert leftovers(cache_dir) == []


def test_a_download_of_the_announced_size_is_cached(cache_dir):
    data = b'z' * 4321
    image = ImageCache(cache_dir, 0).fetch(
        'image:z', 'sha256', sha256(data), Source(data), len(data)
    )
    assert image.size == 4321


def test_a_failing_download_is_wrapped_with_its_cause(cache_dir):
    cache = ImageCache(cache_dir, 0)
    with pytest.raises(image_cache.ImageFetchError) as caught:
        cache.fetch('image:f', 'sha256', sha256(b''), failing(b'abc'))
    assert 'image:f' in str(caught.value)
    assert 'the image service went away' in str(caught.value)
    assert isinstance(caught.value.__cause__, ConnectionError)
    assert leftovers(cache_dir) == []


def test_a_download_that_cannot_start_is_wrapped(cache_dir):
    def refuse() -> Iterator[bytes]:
        raise PermissionError('403 from the image service')

    with pytest.raises(image_cache.ImageFetchError, match='403'):
        ImageCache(cache_dir, 0).fetch('k', 'sha256', sha256(b''), refuse)
    assert leftovers(cache_dir) == []


def test_eight_threads_fetching_one_image_download_it_once(cache_dir):
    data = os.urandom(200_000)
    gate = threading.Event()
    source = Source(data, gate=gate)
    cache = ImageCache(cache_dir, 0)
    results: list[image_cache.CachedImage] = []

    def fetch() -> None:
        results.append(
            cache.fetch('image:one', 'sha256', sha256(data), source)
        )

    threads = [threading.Thread(target=fetch) for _ in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(0.2)  # the seven others are waiting by now
    gate.set()
    for thread in threads:
        thread.join(10)
    assert source.calls == 1
    assert len(results) == 8
    assert {image.path for image in results} == {results[0].path}
    assert results[0].path.read_bytes() == data


def test_when_the_first_download_fails_a_waiter_tries_again(cache_dir):
    data = b'good bytes' * 1000
    gate = threading.Event()
    calls: list[str] = []
    lock = threading.Lock()

    def download() -> Iterator[bytes]:
        with lock:
            calls.append('call')
            first = len(calls) == 1
        if first:
            assert gate.wait(10)
            raise ConnectionError('first attempt broke')
        yield data

    cache = ImageCache(cache_dir, 0)
    outcomes: list[object] = []

    def fetch() -> None:
        try:
            outcomes.append(cache.fetch('k', 'sha256', sha256(data), download))
        except image_cache.ImageFetchError as exc:
            outcomes.append(exc)

    threads = [threading.Thread(target=fetch) for _ in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(0.2)
    gate.set()
    for thread in threads:
        thread.join(10)
    assert len(calls) == 2
    errors = [o for o in outcomes if isinstance(o, Exception)]
    assert len(errors) == 1
    assert len(outcomes) == 4


def test_different_images_download_in_parallel(cache_dir):
    gate = threading.Event()
    data = b'shared bytes' * 100
    source = Source(data, gate=gate)
    cache = ImageCache(cache_dir, 0)
    threads = [
        threading.Thread(
            target=cache.fetch,
            args=(f'image:{n}', 'sha256', sha256(data), source),
        )
        for n in range(3)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 5
    while source.active < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    gate.set()
    for thread in threads:
        thread.join(10)
    assert source.most_active == 3
    assert source.calls == 3


def put(cache: ImageCache, key: str, size: int) -> image_cache.CachedImage:
    data = key.encode()[:1] * size
    return cache.fetch(key, 'sha256', sha256(data), Source(data))


def test_the_least_recently_used_image_is_evicted_first(cache_dir):
    cache = ImageCache(cache_dir, 3000)
    a, b, c = (put(cache, key, 1000) for key in 'abc')
    for image in (a, b, c):
        cache.release(image)
    cache.release(put(cache, 'a', 1000))  # a used again: b is now oldest
    d = put(cache, 'd', 1000)
    assert not b.path.exists()
    assert a.path.exists() and c.path.exists() and d.path.exists()
    cache.release(d)
    cache.release(put(cache, 'e', 1500))
    assert not c.path.exists()
    assert not a.path.exists()
    assert cache.total_bytes == 2500


def test_images_in_use_are_never_evicted(cache_dir):
    cache = ImageCache(cache_dir, 2000)
    held = put(cache, 'a', 1000)
    cache.release(put(cache, 'b', 1000))
    newest = put(cache, 'c', 1000)
    assert held.path.exists()
    assert newest.path.exists()
    assert cache.total_bytes == 2000
    assert len(leftovers(cache_dir)) == 2


def test_an_image_in_use_is_evicted_once_released_if_over_the_limit(
    cache_dir,
):
    cache = ImageCache(cache_dir, 1500)
    first = put(cache, 'a', 1000)
    second = put(cache, 'b', 1000)  # over the limit, both in use
    assert first.path.exists() and second.path.exists()
    cache.release(first)
    assert not first.path.exists()
    assert second.path.exists()


def test_the_using_block_holds_the_image(cache_dir):
    cache = ImageCache(cache_dir, 1000)
    data = b'u' * 1000
    with cache.using('u', 'sha256', sha256(data), Source(data)) as image:
        cache.release(put(cache, 'v', 500))
        assert image.path.exists()
    cache.release(put(cache, 'w', 500))
    assert not image.path.exists()


def test_an_image_larger_than_the_cache_is_returned_then_evicted(
    cache_dir,
):
    cache = ImageCache(cache_dir, 1000)
    data = os.urandom(5000)
    image = cache.fetch('big', 'sha256', sha256(data), Source(data))
    assert image.path.read_bytes() == data
    cache.release(image)
    assert not image.path.exists()
    assert cache.total_bytes == 0


def test_releasing_an_image_not_in_use_is_an_error(cache_dir):
    cache = ImageCache(cache_dir, 0)
    image = put(cache, 'a', 10)
    cache.release(image)
    with pytest.raises(ValueError, match='not in use'):
        cache.release(image)


def test_no_limit_keeps_everything(cache_dir):
    cache = ImageCache(cache_dir, 0)
    for key in 'abcdef':
        cache.release(put(cache, key, 10_000))
    assert len(leftovers(cache_dir)) == 6


def test_unfinished_downloads_are_removed_at_start(cache_dir):
    first = ImageCache(cache_dir, 0)
    kept = put(first, 'a', 100)
    (cache_dir / f'{"0" * 64}.part').write_bytes(b'half an image')
    ImageCache(cache_dir, 0)
    assert leftovers(cache_dir) == [kept.path.name]


def test_a_restarted_cache_serves_what_it_holds(cache_dir):
    data = b'persisted' * 100
    ImageCache(cache_dir, 0).fetch('p', 'sha256', sha256(data), Source(data))
    source = Source(data)
    again = ImageCache(cache_dir, 0)
    image = again.fetch('p', 'sha256', sha256(data), source)
    assert source.calls == 0
    assert image.path.read_bytes() == data
    assert again.total_bytes == len(data)


def test_a_restarted_cache_evicts_down_to_its_new_size(cache_dir):
    cache = ImageCache(cache_dir, 0)
    old = put(cache, 'a', 1000)
    os.utime(old.path, (1, 1))
    new = put(cache, 'b', 1000)
    ImageCache(cache_dir, 1500)
    assert not old.path.exists()
    assert new.path.exists()


def test_the_same_key_with_another_hash_is_another_file(cache_dir):
    cache = ImageCache(cache_dir, 0)
    one, two = b'version one', b'version two'
    first = cache.fetch('image:1', 'sha256', sha256(one), Source(one))
    second = cache.fetch('image:1', 'sha256', sha256(two), Source(two))
    assert first.path != second.path
    assert second.path.read_bytes() == two


def test_a_cached_file_deleted_behind_the_cache_is_downloaded_again(
    cache_dir,
):
    data = b'd' * 100
    source = Source(data)
    cache = ImageCache(cache_dir, 0)
    image = cache.fetch('k', 'sha256', sha256(data), source)
    cache.release(image)
    image.path.unlink()
    again = cache.fetch('k', 'sha256', sha256(data), source)
    assert source.calls == 2
    assert again.path.read_bytes() == data
    assert cache.total_bytes == 100


def test_file_names_are_hex_whatever_the_key(cache_dir):
    data = b'n'
    image = ImageCache(cache_dir, 0).fetch(
        '../../etc/passwd', 'sha256', sha256(data), Source(data)
    )
    assert image.path.parent == cache_dir
    assert len(image.path.name) == 64
    assert int(image.path.name, 16) >= 0


def test_the_directory_is_0700_and_files_0600(cache_dir):
    old_umask = os.umask(0o002)
    try:
        cache = ImageCache(cache_dir / 'nested', 0)
        image = put(cache, 'a', 100)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE((cache_dir / 'nested').stat().st_mode) == 0o700
    assert stat.S_IMODE(image.path.stat().st_mode) == 0o600


def test_a_partial_file_is_0600_while_downloading(cache_dir):
    modes: list[int] = []
    cache = ImageCache(cache_dir, 0)

    def download() -> Iterator[bytes]:
        yield b'first'
        (part,) = cache_dir.glob('*.part')
        modes.append(stat.S_IMODE(part.stat().st_mode))
        yield b'second'

    cache.fetch('k', 'sha256', sha256(b'firstsecond'), download)
    assert modes == [0o600]


def test_a_negative_size_limit_is_refused(cache_dir):
    with pytest.raises(ValueError):
        ImageCache(cache_dir, -1)


def test_a_cache_directory_that_vanished_is_a_fetch_error(cache_dir):
    cache = ImageCache(cache_dir, 0)
    cache_dir.rmdir()
    with pytest.raises(image_cache.ImageFetchError, match='cannot write'):
        cache.fetch('k', 'sha256', sha256(b'x'), Source(b'x'))
