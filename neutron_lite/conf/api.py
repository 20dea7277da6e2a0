"""[api] options of neutron-lite-server (the address it serves on, the
page size; upstream Neutron's ``bind_host``/``bind_port`` and
``pagination_max_limit`` live here, as in the other two services)."""

from oslo_config import cfg

from lite_common.wsgi import server

api_group = cfg.OptGroup('api', title='Networking API options')

api_opts: list[cfg.Opt] = [
    cfg.HostAddressOpt(
        'host_ip',
        default='127.0.0.1',
        help='Address neutron-lite-server listens on.',
    ),
    cfg.PortOpt(
        'port', default=9696, help='Port neutron-lite-server listens on.'
    ),
    cfg.IntOpt(
        'max_limit',
        default=1000,
        min=1,
        help='The most items a list call returns in one page '
        "(upstream's pagination_max_limit); a larger limit is cut to it.",
    ),
    cfg.URIOpt(
        'public_endpoint',
        help='Base URL clients use to reach this API, for the links in '
        'responses. Default: the URL of the request.',
    ),
    *server.server_opts(),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(cfg.OptGroup(api_group.name, title=api_group.title))
    conf.register_opts(api_opts, group=api_group.name)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(api_group.name, api_opts)]
