"""[api] options of ironic-lite-api (upstream Ironic's names)."""

from oslo_config import cfg

from lite_common.wsgi import server

api_group = cfg.OptGroup('api', title='Bare Metal API options')

api_opts: list[cfg.Opt] = [
    cfg.HostAddressOpt(
        'host_ip',
        default='127.0.0.1',
        help='Address ironic-lite-api listens on.',
    ),
    cfg.PortOpt('port', default=6385, help='Port ironic-lite-api listens on.'),
    cfg.IntOpt(
        'conductor_call_timeout',
        default=10,
        min=1,
        help='Seconds the API waits for the conductor that owns a node '
        'to answer a request about it (it only validates and locks '
        'before it answers). When it does not answer and its heartbeat '
        'shows it is down (more than two [conductor]heartbeat_interval, '
        'and at least 5 s, old), the request goes to the next conductor '
        'of the hash ring; otherwise the client gets a 503 to retry.',
    ),
    cfg.BoolOpt(
        'advertise_incomplete_versions',
        default=False,
        help='Advertise and accept microversions up to upstream Ironic '
        "39's maximum (1.115) although not every version below it is "
        'complete (the API reference lists what each one lacks). By '
        'default the maximum is the highest version up to which every '
        'change is served, so that a client negotiating the newest '
        'version relies on nothing that is missing; set this for '
        'clients that need a change of a version above it.',
    ),
    cfg.BoolOpt(
        'project_admin_can_manage_own_nodes',
        default=True,
        help='Whether the administrator of a project may create nodes '
        '(owned by that project) and delete the nodes its project owns '
        '(the policies baremetal:node:create:self_owned_node and '
        'baremetal:node:delete:self_owned_node), as upstream (API '
        '1.80).',
    ),
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
        'enable_ramdisk_endpoints',
        default=True,
        mutable=True,
        help='Whether this API answers ramdisk agents (lookup and '
        'heartbeat, API 1.22). Set it to False on an API that agents '
        'must not reach, such as a public one: those endpoints answer '
        '403 there.',
    ),
    cfg.BoolOpt(
        'restrict_lookup',
        default=True,
        mutable=True,
        help='Whether a lookup finds only nodes in a state where an '
        'agent runs on them (deploying, cleaning, inspecting, rescuing '
        'and their wait states). False lets any machine with a known '
        'MAC address learn its node: not advisable.',
    ),
    cfg.IntOpt(
        'ramdisk_heartbeat_timeout',
        default=300,
        min=1,
        mutable=True,
        help='Seconds between two heartbeats of an agent at most; sent '
        'to agents in the lookup answer.',
    ),
    *server.server_opts(),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(cfg.OptGroup(api_group.name, title=api_group.title))
    conf.register_opts(api_opts, group=api_group.name)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(api_group.name, api_opts)]
