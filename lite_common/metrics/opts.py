"""[metrics] options, shared by both services."""

from oslo_config import cfg

GROUP = 'metrics'

metrics_opts: list[cfg.Opt] = [
    cfg.BoolOpt(
        'enabled',
        default=True,
        help='Serve Prometheus metrics at /metrics on the API. When '
        'false, /metrics is not served (404).',
    ),
    cfg.BoolOpt(
        'require_admin',
        default=True,
        help='/metrics on the API needs the credentials of an admin, as '
        'admin API calls do: 401 without credentials, 403 for any other '
        'user. When false, anyone who reaches the API port can read it '
        'without credentials.',
    ),
    cfg.HostAddressOpt(
        'listen_host',
        default='127.0.0.1',
        help='Address of the metrics listener of a conductor or compute '
        'agent (it has no authentication: keep it on loopback or a '
        'management network).',
    ),
    cfg.PortOpt(
        'listen_port',
        default=0,
        help='Port of the metrics listener of a conductor or compute '
        'agent (plain HTTP, any path answers with the metrics). 0 (the '
        'default) starts no listener. Give each daemon of a host its '
        'own port. The APIs serve /metrics on their own port instead, '
        'and the all-in-one is one process: its APIs show every '
        'series.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(metrics_opts, group=GROUP)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(GROUP, metrics_opts)]
