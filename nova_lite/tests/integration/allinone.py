"""Run ``stacklite-aio`` as a subprocess for the integration tests.

The object satisfies the *cloud* interface of scenario.py.
"""

from collections.abc import Iterator
import contextlib
from pathlib import Path
import signal
import subprocess
from typing import Any

import devstack_support as support
import yaml

from nova_lite.tests.integration import conftest


class AllInOne:
    """``stacklite-aio --state-dir DIR --computes N --api-port PORT``."""

    def __init__(
        self,
        state_dir: Path,
        log_path: Path,
        computes: int = 2,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.state_dir = Path(state_dir)
        self.log_path = Path(log_path)
        self.computes = computes
        self.extra_args = extra_args
        self.port = support.free_port()
        self.baremetal_port = support.free_port()
        self.network_port = support.free_port()
        self.identity_port = support.free_port()
        self.popen: subprocess.Popen | None = None
        self.cloud_name = 'stacklite'
        self._session: Any = None

    @property
    def api_url(self) -> str:
        return f'http://{support.LOCALHOST}:{self.port}'

    @property
    def clouds_yaml(self) -> Path:
        return self.state_dir / 'clouds.yaml'

    def start(self, timeout: float = 180) -> None:
        argv = [
            support.binary('stacklite-aio'),
            '--state-dir',
            str(self.state_dir),
            '--computes',
            str(self.computes),
            '--api-port',
            str(self.port),
            '--baremetal-port',
            str(self.baremetal_port),
            '--network-port',
            str(self.network_port),
            '--identity-port',
            str(self.identity_port),
            *self.extra_args,
        ]
        with open(self.log_path, 'ab') as out:
            self.popen = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        support.wait_for(
            self._ready,
            timeout,
            f'{self.clouds_yaml} and the API at {self.api_url}',
        )
        clouds = yaml.safe_load(self.clouds_yaml.read_text())['clouds']
        if self.cloud_name not in clouds:
            self.cloud_name = next(iter(clouds))

    def _ready(self) -> bool:
        if self.popen.poll() is not None:
            raise RuntimeError(
                f'stacklite-aio exited with '
                f'{self.popen.returncode}\n{self.log_tails()}'
            )
        return self.clouds_yaml.is_file() and support.http_answers(
            self.api_url + '/'
        )

    def stop(self, timeout: float = 60) -> int | None:
        """SIGTERM; the exit code, or None if it had to be killed."""
        if self.popen is None or self.popen.poll() is not None:
            return self.popen.returncode if self.popen else None
        self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(10)
            return None

    def openstack(
        self, *args: str, cloud: str | None = None, **kwargs: Any
    ) -> Any:
        """The CLI as ``cloud`` (default: the admin's cloud; for
        ``baremetal`` commands with Keystone, the system-scoped
        ``stacklite-system``, which administers the nodes the all-in-one
        enrolled: they belong to no project)."""
        if cloud is None and args[:1] == ('baremetal',):
            cloud = self.baremetal_cloud
        return support.run_openstack(
            self.clouds_yaml, cloud or self.cloud_name, *args, **kwargs
        )

    @property
    def baremetal_cloud(self) -> str:
        clouds = yaml.safe_load(self.clouds_yaml.read_text())['clouds']
        return (
            'stacklite-system'
            if 'stacklite-system' in clouds
            else self.cloud_name
        )

    def find_disk(self, host: str, server_id: str) -> Path | None:
        """The disk under ``host``'s state directory in the state dir."""
        for path in self.state_dir.rglob(f'instances/{server_id}/disk'):
            if host in path.relative_to(self.state_dir).parts:
                return path
        return None

    def baremetal_node(self, name: str) -> dict[str, Any] | None:
        """Node ``name`` from the all-in-one's Bare Metal API (latest
        version, as its administrator: system-scoped with Keystone);
        None while it does not answer 200."""
        url = (
            f'http://{support.LOCALHOST}:{self.baremetal_port}/v1/nodes/{name}'
        )
        headers = {'X-OpenStack-Ironic-API-Version': 'latest'}
        credentials = self.state_dir / 'credentials.yaml'
        if credentials.exists():  # --identity http_basic
            users = yaml.safe_load(credentials.read_text())
            status, body = support.http_request(
                url, 'admin', users['admin'], headers=headers
            )
            return body if status == 200 else None
        response = self._system_session().get(
            url, headers=headers, raise_exc=False
        )
        return response.json() if response.status_code == 200 else None

    def _system_session(self) -> Any:
        if self._session is None:
            import openstack.config

            config = openstack.config.OpenStackConfig(
                config_files=[str(self.clouds_yaml)], load_envvars=False
            )
            self._session = config.get_one(
                cloud='stacklite-system'
            ).get_session()
        return self._session

    def log_tails(self, lines: int = 60) -> str:
        # (not the guests' console logs, instances/<uuid>/console.log)
        paths = [
            self.log_path,
            *sorted(
                p
                for p in self.state_dir.rglob('*.log')
                if 'instances' not in p.relative_to(self.state_dir).parts
            ),
        ]
        return '\n'.join(
            f'===== {p} =====\n{support.tail(p, lines)}' for p in paths
        )


@contextlib.contextmanager
def running(
    request: Any,
    tmp_path_factory: Any,
    name: str,
    computes: int = 2,
    extra_args: tuple[str, ...] = (),
    state: str = 'state',
) -> Iterator[AllInOne]:
    """An all-in-one for a module's tests (its logs shown on failure),
    which must exit 0 within 60 s of SIGTERM at the end; its state
    directory is ``state`` in a directory of its own."""
    base = tmp_path_factory.mktemp(name)
    cloud = AllInOne(
        base / state,
        base / 'aio.out',
        computes=computes,
        extra_args=extra_args,
    )
    conftest.register_cloud(request, cloud)
    try:
        cloud.start()
        yield cloud
    finally:
        code = cloud.stop(timeout=60)
    assert code == 0, f'stacklite-aio exit {code}\n{cloud.log_tails()}'
