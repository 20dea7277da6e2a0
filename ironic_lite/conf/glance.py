"""``[glance]``: how the conductor reaches the Image service (nova_lite's
``/image`` API, or upstream Glance) to deploy an image given by its id
(``instance_info['image_source']``); upstream Ironic's group name and
option names."""

from oslo_config import cfg

from lite_common import service_client

GROUP = 'glance'

opts: list[cfg.Opt] = service_client.options(
    'the Image service', default_auth='password'
)


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(cfg.OptGroup(GROUP, title='Image service'))
    conf.register_opts(opts, group=GROUP)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(GROUP, opts)]
