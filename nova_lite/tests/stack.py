"""An in-process nova_lite control plane for API tests.

The real services (conductor and compute agents with the fake or local
driver) over the ``inproc://`` bus and a fresh SQLite file; the API
application is called in process. Nothing here is mocked.
"""

import shutil
import tempfile
from typing import Any

from oslo_config import cfg
from oslo_config import fixture as config_fixture
from oslo_utils import uuidutils

from lite_common import rpc
from lite_common import service as lite_service
from nova_lite import conf as nova_conf
from nova_lite.api import app as api_app
from nova_lite.compute import service as compute_svc
from nova_lite.conductor import service as conductor_svc
from nova_lite.tests import database
from nova_lite.tests import http_server


class Stack:
    """Start with :meth:`start`, always :meth:`stop`."""

    def __init__(
        self,
        auth: str = 'noauth',
        computes: int = 2,
        driver: str = 'fake',
        htpasswd: str | None = None,
        config: dict[str, Any] | None = None,
    ) -> None:
        self.auth = auth
        # More options: [DEFAULT]'s by name (reclaim_instance_interval),
        # others as 'group.option'.
        self.config = config or {}
        self.computes = computes
        self.driver = driver
        self.htpasswd = htpasswd
        self.app: Any = None
        self._cleanups: list[Any] = []

    def _configure(self, tmp: str) -> cfg.ConfigOpts:
        conf = cfg.CONF
        nova_conf.register_all(conf)
        fixture = config_fixture.Config(conf)
        fixture.setUp()
        self._cleanups.append(fixture.cleanUp)
        conf(
            [],
            project='nova-lite',
            default_config_files=[],
            default_config_dirs=[],
        )
        fixture.config(
            transport_url=rpc.INPROC_URL,
            # A private exchange: the bus is shared in a process.
            control_exchange='test-' + uuidutils.generate_uuid(),
            state_path=tmp,
            compute_driver=self.driver,
            auth_strategy=self.auth,
            report_interval=1,
            service_down_time=10,
            host='conductor-host',
        )
        fixture.config(
            connection=f'sqlite:///{tmp}/nova.sqlite', group='database'
        )
        if self.htpasswd:
            fixture.config(http_basic_auth_user_file=self.htpasswd)
        for key, value in self.config.items():
            # 'option' of [DEFAULT], or 'group.option'
            group, _, name = key.rpartition('.')
            fixture.config(**{name: value}, group=group or None)
        return conf

    def _database(self, conf: cfg.ConfigOpts) -> None:
        block = database.temporary_database(conf.database.connection)
        block.__enter__()
        self._cleanups.append(lambda: block.__exit__(None, None, None))

    def prepare(self) -> cfg.ConfigOpts:
        """Configuration, state directory and database; no service yet."""
        tmp = tempfile.mkdtemp(prefix='nova-lite-test-')
        self._cleanups.append(lambda: shutil.rmtree(tmp, ignore_errors=True))
        self.state_path = tmp
        self.conf = self._configure(tmp)
        self._database(self.conf)
        return self.conf

    def start(self) -> 'Stack':
        conf = self.prepare()
        self.launcher = lite_service.Launcher()
        self.launcher.add(conductor_svc.conductor_service(conf))
        for index in range(1, self.computes + 1):
            host = f'compute-{index}'
            self.launcher.add(
                compute_svc.compute_service(
                    conf,
                    host,
                    f'{self.state_path}/{host}',
                    search_config_dirs=False,
                )
            )
        self.launcher.start()
        self._cleanups.append(self.launcher.stop)
        self.app = api_app.load_app(conf)
        self._serve_images(conf)
        return self

    def _serve_images(self, conf: cfg.ConfigOpts) -> None:
        """The API on a loopback port as well, and ``[glance]`` of the
        agents pointing at its Image API: snapshots are uploaded over
        HTTP, as from any agent."""
        server = http_server.serve(self.app)
        self._cleanups.append(server.stop)
        conf.set_override(
            'endpoint_override', f'{server.url}/image', group='glance'
        )
        if self.auth == 'noauth':
            conf.set_override('auth_type', 'none', group='glance')
        else:
            conf.set_override('auth_type', 'http_basic', group='glance')
            conf.set_override('username', 'admin', group='glance')
            conf.set_override('password', 'admin-secret', group='glance')

    def add_cleanup(self, func: Any) -> None:
        self._cleanups.append(func)

    def stop(self) -> None:
        while self._cleanups:
            self._cleanups.pop()()
        rpc.cleanup()
