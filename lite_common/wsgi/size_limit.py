"""A limit on the size of request bodies, as oslo.middleware's
``RequestBodySizeLimiter`` (``[oslo_middleware]
max_request_body_size``).

A body announced larger than the limit is a 413 before the handler
runs; a chunked body is counted as it is read and becomes a 413 (raised
to the fault wrapper, so rendered in the API's format) once it passes
the limit.
"""

from typing import Any

import webob.exc

#: oslo.middleware's default ``max_request_body_size`` (bytes).
DEFAULT_MAX_REQUEST_BODY_SIZE = 114688


def _too_large(message: str) -> webob.exc.HTTPException:
    return webob.exc.HTTPRequestEntityTooLarge(explanation=message)


class LimitingReader:
    """A ``wsgi.input`` that raises a 413 past ``limit`` bytes."""

    def __init__(self, stream: Any, limit: int) -> None:
        self.stream = stream
        self.limit = limit
        self.bytes_read = 0

    def _count(self, chunk: bytes) -> bytes:
        self.bytes_read += len(chunk)
        if self.bytes_read > self.limit:
            raise _too_large(f'Request is too large. Larger than {self.limit}')
        return chunk

    def read(self, size: int | None = -1) -> bytes:
        return self._count(self.stream.read(size))

    def readline(self, size: int | None = -1) -> bytes:
        return self._count(self.stream.readline(size))

    def __iter__(self) -> Any:
        for chunk in self.stream:
            yield self._count(chunk)


def limit_body_size(app: Any, limit: int) -> Any:
    """``app`` with bodies of at most ``limit`` bytes; place it inside a
    fault wrapper, which renders the 413 in the API's format."""

    def middleware(environ: dict[str, Any], start_response: Any) -> Any:
        length = environ.get('CONTENT_LENGTH')
        if length and length.isdigit() and int(length) > limit:
            raise _too_large(
                'Request is too large. Larger than max_request_body_size '
                f'({limit}).'
            )
        if not length and 'wsgi.input' in environ:
            # Chunked (or no body): count what the handler reads.
            environ['wsgi.input'] = LimitingReader(
                environ['wsgi.input'], limit
            )
        return app(environ, start_response)

    return middleware
