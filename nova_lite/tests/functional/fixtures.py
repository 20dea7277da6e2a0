"""Gabbi fixtures: each YAML file runs against a fresh in-process stack."""

from pathlib import Path
import tempfile
from typing import Any

import bcrypt
from gabbi import fixture

from nova_lite.tests import stack

CURRENT: dict[str, Any] = {}

USERS = {
    'admin': 'admin-secret',
    'demo': 'demo-secret',
    'other': 'other-secret',
}


def _pep3333_path(path: str) -> str:
    """``PATH_INFO`` as a WSGI server gives it: the URL's bytes, latin-1
    decoded. httpx's WSGITransport (gabbi's intercept) gives decoded
    text instead, with U+FFFD for bytes that are not UTF-8: those become
    the byte 0xFF again, still not UTF-8."""
    return b''.join(
        b'\xff' if char == '\ufffd' else char.encode('utf-8') for char in path
    ).decode('latin-1')


def application(environ: dict[str, Any], start_response: Any) -> Any:
    """What gabbi calls: the app of the stack that is running now."""
    environ['PATH_INFO'] = _pep3333_path(environ.get('PATH_INFO', ''))
    return CURRENT['stack'].app(environ, start_response)


class APIFixture(fixture.GabbiFixture):
    """noauth: every request is an admin."""

    auth = 'noauth'
    #: More options of the stack ([DEFAULT]'s by name, others as
    #: ``'group.option'``).
    config: dict[str, Any] = {}

    def _htpasswd(self) -> str | None:
        return None

    def start_fixture(self) -> None:
        CURRENT['stack'] = stack.Stack(
            auth=self.auth, htpasswd=self._htpasswd(), config=self.config
        ).start()

    def stop_fixture(self) -> None:
        CURRENT.pop('stack').stop()


class BasicAuthFixture(APIFixture):
    """http_basic with users admin (admin), demo and other (members)."""

    auth = 'http_basic'

    def _htpasswd(self) -> str:
        return write_htpasswd()


class DeferredDeleteFixture(BasicAuthFixture):
    """http_basic, and DELETE soft-deletes (reclaimed after an hour)."""

    config = {'reclaim_instance_interval': 3600}


class ShelveKeptFixture(BasicAuthFixture):
    """http_basic, and a shelved server stays on its host until it is
    offloaded by request (shelveOffload)."""

    config = {'shelved_offload_time': -1}


class SlowBuildFixture(BasicAuthFixture):
    """http_basic, and every build (spawn, rebuild) of the fake driver
    takes a second: a request sent right after a 202 finds the task
    still running (a 409 to test), however quiet the machine."""

    config = {'virt_resources.spawn_seconds': 1}


class ImageQuotaFixture(BasicAuthFixture):
    """http_basic, and each project's images may hold 20 bytes."""

    config = {'image_store.project_storage_quota': 20}


def write_htpasswd() -> str:
    """An htpasswd file of :data:`USERS` (cheap bcrypt rounds)."""
    path = Path(tempfile.mkdtemp()) / 'htpasswd'
    path.write_text(
        ''.join(
            f'{user}:{bcrypt.hashpw(pw.encode(), bcrypt.gensalt(4)).decode()}'
            '\n'
            for user, pw in USERS.items()
        )
    )
    return str(path)
