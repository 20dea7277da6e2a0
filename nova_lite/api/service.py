"""The nova-lite-api server: the Compute API (and the image catalog) on
waitress (built by the daemon and the all-in-one)."""

from oslo_config import cfg

from lite_common.wsgi import server as wsgi_server
from nova_lite.api import app as api_app
from nova_lite.api import errors as api_errors


def api_server(conf: cfg.ConfigOpts) -> wsgi_server.APIServer:
    return wsgi_server.APIServer(
        'nova-lite-api',
        api_app.load_app(conf),
        conf.api.host,
        conf.api.port,
        wsgi_server.Settings.from_group(conf.api),
        api_errors.compute_error,
    )
