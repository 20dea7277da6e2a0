"""Both APIs, whole, on their real servers (waitress behind the
connection guard) on an ephemeral 127.0.0.1 port, configured by a file
as a deployment is; no conductor behind them."""

from collections.abc import Callable
from collections.abc import Iterator
import contextlib
from pathlib import Path

from keystoneauth1 import loading
from oslo_config import cfg
from oslo_config import fixture as config_fixture

from ironic_lite import conf as ironic_conf
from ironic_lite.cmd import api as ironic_api
from lite_common.wsgi import server
from nova_lite import conf as nova_conf
from nova_lite.api import service as api_svc


def _config_file(tmp: Path, auth: str, host_option: str, extra: str) -> str:
    path = tmp / 'api.conf'
    path.write_text(
        f'[DEFAULT]\nauth_strategy = {auth}\n'
        f'[database]\nconnection = sqlite:///{tmp}/api.sqlite\n'
        f'[api]\n{host_option} = 127.0.0.1\nport = 0\n' + extra
    )
    return str(path)


@contextlib.contextmanager
def _running(api: server.APIServer) -> Iterator[int]:
    api.start()
    try:
        yield api.bind_addr[1]
    finally:
        api.stop()


@contextlib.contextmanager
def compute_api(
    tmp: Path, auth: str = 'noauth', extra: str = ''
) -> Iterator[int]:
    """nova-lite-api serving: its port. With ``auth='keystone'``, the
    ``password`` auth plugin in ``extra``'s [keystone_authtoken]."""
    # The Compute API reads the global configuration.
    nova_conf.register_all(cfg.CONF)
    fixture = config_fixture.Config(cfg.CONF)
    fixture.setUp()
    try:
        cfg.CONF(
            [],
            default_config_files=[_config_file(tmp, auth, 'host', extra)],
            default_config_dirs=[],
        )
        with _running(api_svc.api_server(cfg.CONF)) as port:
            yield port
    finally:
        fixture.cleanUp()
        if auth == 'keystone':
            _forget_keystone_plugin(cfg.CONF)


def _forget_keystone_plugin(conf: cfg.ConfigOpts) -> None:
    """keystonemiddleware registers its auth plugin's options (those of
    ``password``, some required) on the configuration it was given: on
    the global one they would make every later parse of it fail."""
    conf.unregister_opts(
        loading.get_auth_plugin_conf_options('password'),
        group='keystone_authtoken',
    )


@contextlib.contextmanager
def baremetal_api(
    tmp: Path, auth: str = 'noauth', extra: str = ''
) -> Iterator[int]:
    """ironic-lite-api serving: its port."""
    conf = cfg.ConfigOpts()
    ironic_conf.register_all(conf)
    conf(
        [],
        default_config_files=[_config_file(tmp, auth, 'host_ip', extra)],
        default_config_dirs=[],
    )
    with _running(ironic_api.api_server(conf)) as port:
        yield port


APIS: dict[str, Callable[..., contextlib.AbstractContextManager[int]]] = {
    'compute': compute_api,
    'baremetal': baremetal_api,
}
