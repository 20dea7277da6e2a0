"""The ``.json`` suffix of URLs below 1.91, as upstream's
JsonExtensionMiddleware.

Upstream Ironic once guessed the content type from a path's extension;
for compatibility a path ending in ``.json`` is served without it when
the request asks (with ``X-OpenStack-Ironic-API-Version``) for a version
below 1.91: ``/v1/nodes/node-1.json`` is node ``node-1``, or the node
named ``node-1.json`` when there is no ``node-1``
(:func:`had_suffix`). From 1.91, or without that header, the path is
taken as it is.
"""

from typing import Any
from typing import cast

import microversion_parse

from ironic_lite.api import microversion as mv
from lite_common.wsgi.microversion import APIVersion

SUFFIX = '.json'
_FLAG = 'ironic_lite.json_suffix'
_HEADER = 'HTTP_' + mv.LEGACY_HEADER.upper().replace('-', '_')
_KEPT_FROM = APIVersion.parse(mv.JSON_SUFFIX_KEPT)


def _strips(environ: dict[str, Any]) -> bool:
    text = environ.get(_HEADER, '')
    try:
        version = microversion_parse.parse_version_string(text)
    except (TypeError, ValueError):
        return False  # no header, "latest", or not a version
    # Upstream compares the minor number only.
    return cast(bool, 0 < version.minor < _KEPT_FROM.minor)


def strip_json_suffix(app: Any) -> Any:
    def middleware(environ: dict[str, Any], start_response: Any) -> Any:
        path = environ.get('PATH_INFO', '').rstrip('/')
        environ[_FLAG] = False
        if path.endswith(SUFFIX) and _strips(environ):
            environ['PATH_INFO'] = path[: -len(SUFFIX)]
            environ[_FLAG] = True
        return app(environ, start_response)

    return middleware


def had_suffix(environ: dict[str, Any]) -> bool:
    """Whether ``.json`` was taken off this request's path."""
    return bool(environ.get(_FLAG))
