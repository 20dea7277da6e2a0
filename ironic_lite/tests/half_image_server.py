"""An HTTP server of one image that sends only half of it: it announces
the whole length, sends the first half, then closes the connection
(``hold=False``: a truncated download) or holds it until released
(``hold=True``: a download in progress for as long as a test needs, to
kill the agent in the middle of its write)."""

import http.server
import threading
from typing import Any


class _Handler(http.server.BaseHTTPRequestHandler):
    server: 'HalfImageServer'

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        data = self.server.data
        self.send_response(200)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()
        self.server.half_sent.set()
        if self.server.hold:
            self.server.released.wait(120)
        self.close_connection = True

    def log_message(self, *args: Any) -> None:
        pass


class HalfImageServer(http.server.ThreadingHTTPServer):
    """Use as a context manager: serving on 127.0.0.1 inside."""

    daemon_threads = True

    def __init__(self, data: bytes, hold: bool = False) -> None:
        super().__init__(('127.0.0.1', 0), _Handler)
        self.data = data
        self.hold = hold
        self.half_sent = threading.Event()
        self.released = threading.Event()
        self._thread = threading.Thread(
            target=self.serve_forever, name='half-image-server', daemon=True
        )

    def url(self, name: str = 'image.raw') -> str:
        return f'http://127.0.0.1:{self.server_port}/{name}'

    def __enter__(self) -> 'HalfImageServer':
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.released.set()
        self.shutdown()
        self.server_close()
