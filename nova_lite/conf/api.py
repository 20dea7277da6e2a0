"""[api] options of nova-lite-api."""

from oslo_config import cfg

from lite_common.wsgi import server

api_group = cfg.OptGroup('api', title='Compute API options')

api_opts = [
    cfg.HostAddressOpt(
        'host', default='127.0.0.1', help='Address nova-lite-api listens on.'
    ),
    cfg.PortOpt('port', default=8774, help='Port nova-lite-api listens on.'),
    cfg.IntOpt(
        'max_limit',
        default=1000,
        min=1,
        help='The most items a list call returns in one page.',
    ),
    cfg.URIOpt(
        'public_endpoint',
        help='Base URL clients use to reach this API, for links in '
        'responses. Default: the URL of the request.',
    ),
    cfg.BoolOpt(
        'enable_instance_password',
        default=True,
        help='Whether the rescue action answers the rescue password '
        '(``adminPass``) it set, as upstream. False: the answer is an '
        'empty object and the password is known only to whoever chose '
        'it.',
    ),
    *server.server_opts(),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(api_group)
    conf.register_opts(api_opts, group=api_group)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(api_group.name, api_opts)]
