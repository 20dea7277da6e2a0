"""The conductor's HTTP server of cached images (upstream's ``http_url``
with ``image_download_source = local``): a ramdisk agent downloads the
image it writes from here.

Only files the conductor *publishes* are served, each under an
unguessable token (``{base_url}/{token}/{file name}``); any other path is
a 404, so the server never exposes the cache directory or the file
system. GET and HEAD, and one byte range (the agent resuming a download);
the body is sent from the file (``sendfile``), never read into memory.

:func:`shared` builds the process's cache and server once from
``[deploy]``; :func:`stop_shared` stops them (shutdown, tests).
"""

from http import HTTPStatus
import http.server
import os
from pathlib import Path
import re
import secrets
import socket
import threading
from typing import BinaryIO
from typing import cast
import urllib.parse

from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite.drivers import image_cache

LOG = logging.getLogger(__name__)

MIB = 1024 * 1024
_RANGE = re.compile(r'bytes=(\d*)-(\d*)')


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The (first, last) bytes of a single ``Range`` of a ``size``-byte
    file; None to send it whole (no header, several or invalid ranges:
    RFC 9110 lets a server ignore them). Raises ValueError when the range
    is unsatisfiable (416)."""
    match = _RANGE.fullmatch((header or '').strip())
    if match is None:
        return None
    first_text, last_text = match.groups()
    if not first_text:
        if not last_text or int(last_text) == 0 or size == 0:
            raise ValueError('empty suffix range')
        return max(size - int(last_text), 0), size - 1
    first = int(first_text)
    if last_text and int(last_text) < first:
        return None
    if first >= size:
        raise ValueError('range starts past the end')
    last = int(last_text) if last_text else size - 1
    return first, min(last, size - 1)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], owner: 'ImageServer'):
        if ':' in address[0]:
            self.address_family = socket.AF_INET6
        self.owner = owner
        super().__init__(address, _Handler)


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = 'ironic-lite-image-server'
    protocol_version = 'HTTP/1.1'
    _token = '-'

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._serve(body=True)

    def do_HEAD(self) -> None:  # noqa: N802 (http.server's name)
        self._serve(body=False)

    def _published(self) -> Path | None:
        """The file of ``/[prefix/]{token}/{name}``, None if unpublished
        (a proxy may keep the advertised URL's path prefix)."""
        segments = urllib.parse.urlsplit(self.path).path.split('/')
        if len(segments) < 3:
            self._token = '-'
            return None
        token, name = segments[-2], urllib.parse.unquote(segments[-1])
        self._token = token[:64] or '-'
        found = cast(_Server, self.server).owner.published_path(token)
        if found is None or name != found.name:
            return None
        return found

    def _serve(self, body: bool) -> None:
        path = self._published()
        if path is None:
            self._empty(HTTPStatus.NOT_FOUND)
            return
        try:
            image = open(path, 'rb')
        except OSError as exc:
            LOG.warning('Image server: cannot open %s: %s', path, exc)
            self._empty(HTTPStatus.NOT_FOUND)
            return
        with image:
            size = os.fstat(image.fileno()).st_size
            try:
                wanted = parse_range(self.headers.get('Range'), size)
            except ValueError:
                self._empty(
                    HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE,
                    {'Content-Range': f'bytes */{size}'},
                )
                return
            self._send_file(image, size, wanted, body)

    def _send_file(
        self,
        image: BinaryIO,
        size: int,
        wanted: tuple[int, int] | None,
        body: bool,
    ) -> None:
        first, last = wanted if wanted is not None else (0, size - 1)
        if wanted is None:
            self.send_response(HTTPStatus.OK)
        else:
            self.send_response(HTTPStatus.PARTIAL_CONTENT)
            self.send_header('Content-Range', f'bytes {first}-{last}/{size}')
        self.send_header('Content-Type', 'application/octet-stream')
        self.send_header('Content-Length', str(last - first + 1))
        self.send_header('Accept-Ranges', 'bytes')
        self.end_headers()
        if not body or last < first:
            return
        try:
            self.connection.sendfile(image, first, last - first + 1)
        except (BrokenPipeError, ConnectionResetError) as exc:
            LOG.debug(
                'Image server: token %s: client left: %s', self._token, exc
            )
            self.close_connection = True

    def _empty(
        self, status: HTTPStatus, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header('Content-Length', '0')
        self.end_headers()

    def log_request(
        self, code: int | str = '-', size: int | str = '-'
    ) -> None:
        LOG.debug(
            'Image server: %s token %s from %s: %s',
            self.command,
            self._token,
            self.client_address[0],
            code,
        )

    def log_message(self, format: str, *args: object) -> None:
        LOG.debug('Image server: token %s: %s', self._token, format % args)


class ImageServer:
    """Serves published files over HTTP to ramdisk agents.

    ``port`` 0 takes any free port; ``advertise_url`` is the base URL the
    agents use (default ``http://host:port``).
    """

    def __init__(
        self, host: str, port: int, advertise_url: str | None = None
    ) -> None:
        self.host = host
        self.port = port
        self.advertise_url = (
            advertise_url.rstrip('/') if advertise_url else None
        )
        self._published: dict[str, Path] = {}
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The URL published files are under (without the trailing /)."""
        if self.advertise_url:
            return self.advertise_url
        if self._server is None:
            raise RuntimeError('the image server is not started')
        port = self._server.server_address[1]
        host = f'[{self.host}]' if ':' in self.host else self.host
        return f'http://{host}:{port}'

    def start(self) -> None:
        """Listen and serve in a daemon thread."""
        if self._server is not None:
            return
        try:
            self._server = _Server((self.host, self.port), self)
        except OSError as exc:
            raise RuntimeError(
                f'the image server cannot listen on {self.host}:'
                f'{self.port}: {exc}'
            ) from exc
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            # How soon stop() returns.
            kwargs={'poll_interval': 0.05},
            name='image-server',
            daemon=True,
        )
        self._thread.start()
        LOG.info('Image server serving at %s', self.base_url)

    def stop(self) -> None:
        """Stop listening; requests under way end with their thread."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        LOG.info('Image server stopped')

    def publish(self, path: Path) -> str:
        """Serve ``path`` (a file the caller keeps while it is published)
        and return its URL."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._published[token] = Path(path)
        LOG.debug('Image server: publishing %s as token %s', path, token)
        return f'{self.base_url}/{token}/{urllib.parse.quote(path.name)}'

    def unpublish(self, url_or_token: str) -> None:
        """Stop serving a URL :meth:`publish` returned (or its token);
        unknown ones are ignored."""
        token = url_or_token
        if '/' in url_or_token:
            segments = urllib.parse.urlsplit(url_or_token).path.split('/')
            token = segments[-2] if len(segments) >= 3 else ''
        with self._lock:
            removed = self._published.pop(token, None)
        if removed is not None:
            LOG.debug('Image server: unpublished token %s', token)

    def published_path(self, token: str) -> Path | None:
        """The file published under ``token``, None if there is none."""
        with self._lock:
            return self._published.get(token)


_shared_lock = threading.Lock()
#: By cache directory: one cache (and its server) per directory, so that
#: two conductors of one process (tests) keep theirs apart.
_shared: dict[Path, tuple[image_cache.ImageCache, ImageServer]] = {}


def shared(
    conf: cfg.ConfigOpts,
) -> tuple[image_cache.ImageCache, ImageServer]:
    """The image cache of ``conf.deploy`` and its started image server,
    built by the first call of this process with that cache directory.

    :raises RuntimeError: the server cannot listen (the message names
        the address).
    """
    group = conf.deploy
    directory = Path(group.image_cache_dir).absolute()
    with _shared_lock:
        found = _shared.get(directory)
        if found is None:
            cache = image_cache.ImageCache(
                directory, group.image_cache_size * MIB
            )
            server = ImageServer(
                group.image_server_host,
                group.image_server_port,
                group.http_url,
            )
            server.start()
            found = _shared[directory] = (cache, server)
        return found


def stop_shared(conf: cfg.ConfigOpts | None = None) -> None:
    """Stop the image server of ``conf``'s cache directory (None: every
    one) and forget it (the next :func:`shared` builds it again)."""
    with _shared_lock:
        if conf is None:
            directories = list(_shared)
        else:
            directories = [Path(conf.deploy.image_cache_dir).absolute()]
        for directory in directories:
            found = _shared.pop(directory, None)
            if found is not None:
                found[1].stop()
