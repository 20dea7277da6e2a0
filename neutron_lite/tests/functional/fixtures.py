"""An in-process neutron_lite API for tests, and its gabbi fixtures.

A fresh, migrated SQLite file and the real application, called in
process by gabbi (or served on a port for the client tests); a private
``ConfigOpts``. Nothing here is mocked.
"""

from lite_common import backend

backend.select_threading()

from collections.abc import Callable  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
from typing import Any  # noqa: E402

from gabbi import fixture  # noqa: E402
from oslo_config import cfg  # noqa: E402

from neutron_lite import conf as neutron_conf  # noqa: E402
from neutron_lite.api import app as api_app  # noqa: E402
from neutron_lite.db import api as db_api  # noqa: E402
from neutron_lite.db import migration  # noqa: E402

CURRENT: dict[str, Any] = {}


class Stack:
    """Start with :meth:`start`, always :meth:`stop`."""

    def __init__(
        self, overrides: dict[str, Any] | None = None, url: str | None = None
    ) -> None:
        self.overrides = overrides or {}
        self.url = url
        self.app: Any = None
        self._cleanups: list[Callable[[], Any]] = []

    def _configure(self, url: str) -> cfg.ConfigOpts:
        conf = cfg.ConfigOpts()
        neutron_conf.register_all(conf)
        conf(
            [],
            project='neutron-lite',
            default_config_files=[],
            default_config_dirs=[],
        )
        conf.set_override('auth_strategy', 'noauth')
        conf.set_override('connection', url, group='database')
        for key, value in self.overrides.items():
            group, _, name = key.rpartition('.')
            conf.set_override(name, value, group=group or None)
        return conf

    def _database(self, url: str) -> None:
        manager = db_api.context_manager.make_new_manager()
        manager.configure(connection=url)
        restore = db_api.context_manager.patch_factory(manager)
        self._cleanups.append(manager.dispose_pool)
        self._cleanups.append(restore)
        migration.db_sync(manager.writer.get_engine())

    def start(self) -> 'Stack':
        url = self.url
        if url is None:
            tmp = tempfile.mkdtemp(prefix='neutron-lite-test-')
            self._cleanups.append(
                lambda: shutil.rmtree(tmp, ignore_errors=True)
            )
            url = f'sqlite:///{tmp}/neutron.sqlite'
        self.conf = self._configure(url)
        self._database(url)
        self.app = api_app.load_app(self.conf)
        return self

    def stop(self) -> None:
        while self._cleanups:
            self._cleanups.pop()()


def application(environ: dict[str, Any], start_response: Any) -> Any:
    """What gabbi calls: the app of the stack that is running now."""
    return CURRENT['stack'].app(environ, start_response)


class APIFixture(fixture.GabbiFixture):
    """noauth: a request is project ``admin``'s administrator unless its
    X-Project-Id / X-Roles headers say otherwise."""

    overrides: dict[str, Any] = {}

    def start_fixture(self) -> None:
        CURRENT['stack'] = Stack(overrides=self.overrides).start()

    def stop_fixture(self) -> None:
        CURRENT.pop('stack').stop()
