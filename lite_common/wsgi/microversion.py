"""Microversion parsing and range enforcement.

An API declares its range with :class:`VersionRange`; the middleware
puts the requested :class:`APIVersion` in ``environ['lite.version']``.
No header means the minimum, ``latest`` the maximum; a version out of
range is a 406 and a malformed one a 400.
"""

from collections.abc import Callable
from collections.abc import Iterable
import functools
import re
from typing import Any
from typing import NamedTuple

import microversion_parse
import webob
import webob.exc

ENV_KEY = 'lite.version'
_VERSION_RE = re.compile(r'^([1-9]\d*)\.(0|[1-9]\d*)$')


class APIVersion(NamedTuple):
    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> 'APIVersion':
        return _parse(text)

    def __str__(self) -> str:
        return f'{self.major}.{self.minor}'

    def at_least(self, text: str) -> bool:
        return self >= APIVersion.parse(text)

    def below(self, text: str) -> bool:
        return self < APIVersion.parse(text)

    def within(self, low: str, high: str | None = None) -> bool:
        """True for ``low <= self <= high`` (no ``high``: no ceiling)."""
        if self < APIVersion.parse(low):
            return False
        return high is None or self <= APIVersion.parse(high)


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> APIVersion:
    """Parsed once per distinct string: handlers compare the request's
    version with literals such as '2.47' for every item they render."""
    match = _VERSION_RE.match(text.strip())
    if not match:
        raise ValueError(f'Invalid version string {text!r}')
    return APIVersion(int(match.group(1)), int(match.group(2)))


class VersionRange:
    """The versions one API accepts and how its headers are spelled."""

    def __init__(
        self,
        service_type: str,
        minimum: str,
        maximum: str,
        legacy_header: str,
        response_headers: Callable[
            ['VersionRange', APIVersion], Iterable[tuple[str, str]]
        ],
    ) -> None:
        self.service_type = service_type
        self.minimum = APIVersion.parse(minimum)
        self.maximum = APIVersion.parse(maximum)
        self.legacy_header = legacy_header
        self.response_headers = response_headers

    def requested(self, headers: Any) -> APIVersion:
        """The version a request asks for, checked against the range."""
        text = microversion_parse.get_version(
            headers,
            service_type=self.service_type,
            legacy_headers=[self.legacy_header],
        )
        if text is None:
            return self.minimum
        if text.strip().lower() == 'latest':
            return self.maximum
        try:
            version = APIVersion.parse(text)
        except ValueError:
            raise webob.exc.HTTPBadRequest(
                explanation=f'Invalid API version {text!r}: expected '
                f'MAJOR.MINOR or "latest".'
            )
        if not self.minimum <= version <= self.maximum:
            raise webob.exc.HTTPNotAcceptable(
                explanation=f'Version {version} is not supported by the '
                f'API. Minimum is {self.minimum} and maximum is '
                f'{self.maximum}.'
            )
        return version


class MicroversionMiddleware:
    """Parses the requested version; sets the version response headers.

    Paths in ``unversioned`` (version documents) accept any header: at
    the minimum version, or (``echo_unversioned``) at the version asked
    for when it is a valid one, which the response headers echo.
    """

    def __init__(
        self,
        app: Any,
        versions: VersionRange,
        unversioned: Callable[[str], bool],
        echo_unversioned: bool = False,
    ) -> None:
        self.app = app
        self.versions = versions
        self.unversioned = unversioned
        self.echo_unversioned = echo_unversioned

    def _unversioned(self, req: webob.Request) -> APIVersion:
        if self.echo_unversioned:
            try:
                return self.versions.requested(req.headers)
            except webob.exc.HTTPException:
                pass
        return self.versions.minimum

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        req = webob.Request(environ)
        if self.unversioned(req.path_info):
            version = self._unversioned(req)
        else:
            version = self.versions.requested(req.headers)
        environ[ENV_KEY] = version
        extra = list(self.versions.response_headers(self.versions, version))

        def _start_response(
            status: str, headers: list[Any], exc_info: Any = None
        ) -> Any:
            names = {name.lower() for name, _ in headers}
            headers.extend((k, v) for k, v in extra if k.lower() not in names)
            return start_response(status, headers, exc_info)

        return self.app(environ, _start_response)


def get_version(req: webob.Request) -> APIVersion:
    version: APIVersion = req.environ[ENV_KEY]
    return version
