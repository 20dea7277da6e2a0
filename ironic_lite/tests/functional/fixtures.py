"""An in-process ironic_lite control plane for API tests, and the gabbi
fixtures on top of it.

The real conductor (``ironic_lite.service.conductor_service``) with the
fake hardware type, over the ``inproc://`` bus and a fresh, migrated
SQLite file; the API application is called in process (or served by
cheroot for the client tests). The configuration is a private
``ConfigOpts``: ironic_lite must not need the global one. Nothing here
is mocked.
"""

from lite_common import backend

backend.select_threading()

from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
from typing import Any  # noqa: E402

import bcrypt  # noqa: E402
from gabbi import fixture  # noqa: E402
from oslo_config import cfg  # noqa: E402
from oslo_utils import uuidutils  # noqa: E402

from ironic_lite import conf as ironic_conf  # noqa: E402
from ironic_lite import service  # noqa: E402
from ironic_lite.api import app as api_app  # noqa: E402
from ironic_lite.db import api as db_api  # noqa: E402
from ironic_lite.db import migration  # noqa: E402
from lite_common import rpc  # noqa: E402

CURRENT: dict[str, Any] = {}
USERS = {'admin': 'admin-secret', 'demo': 'demo-secret'}


class Stack:
    """Start with :meth:`start`, always :meth:`stop`."""

    def __init__(
        self,
        auth: str = 'noauth',
        htpasswd: str | None = None,
        overrides: dict[str, Any] | None = None,
    ) -> None:
        self.auth = auth
        self.htpasswd = htpasswd
        self.overrides = overrides or {}
        self.app: Any = None
        self.conductor: Any = None
        self._cleanups: list[Callable[[], Any]] = []

    def _configure(self, tmp: str) -> cfg.ConfigOpts:
        conf = cfg.ConfigOpts()
        ironic_conf.register_all(conf)
        conf(
            [],
            project='ironic-lite',
            default_config_files=[],
            default_config_dirs=[],
        )
        # A private exchange: the bus is shared in a process.
        conf.set_override('transport_url', rpc.INPROC_URL)
        conf.set_override(
            'control_exchange', 'test-' + uuidutils.generate_uuid()
        )
        conf.set_override('host', 'conductor-1')
        conf.set_override('auth_strategy', self.auth)
        if self.htpasswd:
            conf.set_override('http_basic_auth_user_file', self.htpasswd)
        conf.set_override(
            'connection', f'sqlite:///{tmp}/ironic.sqlite', group='database'
        )
        # The tests reach every version served, the complete ones and
        # those above them (microversions-advertised.yaml tests the default).
        conf.set_override('advertise_incomplete_versions', True, group='api')
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

    def start(self, conductor: bool = True) -> 'Stack':
        tmp = tempfile.mkdtemp(prefix='ironic-lite-test-')
        self._cleanups.append(lambda: shutil.rmtree(tmp, ignore_errors=True))
        self.conf = self._configure(tmp)
        self._database(self.conf.database.connection)
        self._cleanups.append(rpc.cleanup)
        if conductor:
            self.conductor = service.conductor_service(self.conf)
            self.conductor.start()
            self._cleanups.append(self.conductor.stop)
        self.app = api_app.load_app(self.conf)
        return self

    def stop(self) -> None:
        while self._cleanups:
            self._cleanups.pop()()


def application(environ: dict[str, Any], start_response: Any) -> Any:
    """What gabbi calls: the app of the stack that is running now."""
    return CURRENT['stack'].app(environ, start_response)


def write_htpasswd() -> str:
    path = Path(tempfile.mkdtemp()) / 'htpasswd'
    path.write_text(
        ''.join(
            f'{user}:'
            f'{bcrypt.hashpw(pw.encode(), bcrypt.gensalt(4)).decode()}\n'
            for user, pw in USERS.items()
        )
    )
    return str(path)


class APIFixture(fixture.GabbiFixture):
    """noauth: every request is an admin."""

    auth = 'noauth'
    overrides: dict[str, Any] = {}

    def start_fixture(self) -> None:
        htpasswd = write_htpasswd() if self.auth == 'http_basic' else None
        CURRENT['stack'] = Stack(
            auth=self.auth, htpasswd=htpasswd, overrides=self.overrides
        ).start()

    def stop_fixture(self) -> None:
        CURRENT.pop('stack').stop()


class BasicAuthFixture(APIFixture):
    """http_basic: admin (admin role) and demo (member)."""

    auth = 'http_basic'


class NoRamdiskFixture(APIFixture):
    """noauth, on an API that must not answer ramdisk agents."""

    overrides = {'api.enable_ramdisk_endpoints': False}


class AsyncInspectFixture(APIFixture):
    """noauth; the fake inspect interface waits (inspect wait, 1.39)."""

    overrides = {'fake.asynchronous_inspection': True}


class ConductorGroupFixture(APIFixture):
    """noauth, with the conductor in conductor group ``Rack1``."""

    overrides = {'conductor.conductor_group': 'Rack1'}


class NoSelfServiceFixture(APIFixture):
    """noauth; project administrators may not manage their own nodes."""

    overrides = {'api.project_admin_can_manage_own_nodes': False}


class CompleteVersionsFixture(APIFixture):
    """noauth, advertising the complete versions only (the default)."""

    overrides = {'api.advertise_incomplete_versions': False}


class FlatNetworkFixture(APIFixture):
    """noauth, with the flat network interface enabled and a cleaning
    network named."""

    overrides = {
        'enabled_network_interfaces': ['noop', 'flat'],
        'neutron.cleaning_network': 'cleaning-net',
    }
