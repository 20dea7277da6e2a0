"""Small WSGI middleware both APIs put in front of their routers."""

from typing import Any


def strip_slash(app: Any) -> Any:
    """``/v1/nodes/`` is ``/v1/nodes``: the routes have no trailing
    slash, and the clients sometimes send one."""

    def middleware(environ: dict[str, Any], start_response: Any) -> Any:
        path = environ.get('PATH_INFO', '')
        if len(path) > 1 and path.endswith('/'):
            environ['PATH_INFO'] = path.rstrip('/')
        return app(environ, start_response)

    return middleware


def with_environ(app: Any, key: str, value: Any) -> Any:
    """``app`` with ``environ[key] = value`` on every request (how the
    handlers reach the application's dependencies)."""

    def middleware(environ: dict[str, Any], start_response: Any) -> Any:
        environ[key] = value
        return app(environ, start_response)

    return middleware
