"""``[glance]``: how a compute agent reaches the Image API (nova_lite's
``/image``, or upstream Glance) to upload the disks of snapshots,
backups and shelved servers (createImage, createBackup, shelve) and to
download a shelved server's snapshot when it is unshelved; upstream
Nova's group name and keystoneauth option names."""

from oslo_config import cfg

from lite_common import service_client

GROUP = 'glance'

opts: list[cfg.Opt] = service_client.options(
    'the Image API', default_auth='password'
)


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(cfg.OptGroup(GROUP, title='Image API'))
    conf.register_opts(opts, group=GROUP)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(GROUP, opts)]
