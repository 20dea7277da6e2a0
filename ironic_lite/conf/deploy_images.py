"""``[deploy]``: the conductor's image cache and the HTTP server that
serves cached images to the ramdisk agents (upstream's names where
upstream has the option: ``http_url``, ``image_download_source``)."""

from oslo_config import cfg

DEPLOY_IMAGE_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        'image_download_source',
        default='local',
        choices=[
            (
                'local',
                'The conductor downloads every image into its cache, '
                'verifies it and serves it to the agent from http_url.',
            ),
            (
                'http',
                'An http(s) image_source URL is handed to the agent as '
                'it is (the agent must reach it); images of the image '
                'service and file:// images are still cached and served.',
            ),
        ],
        help='Where the ramdisk agent downloads the image it writes from.',
    ),
    cfg.StrOpt(
        'image_cache_dir',
        default='/var/lib/ironic-lite/image-cache',
        help="Directory of the conductor's image cache (created 0700). "
        'It needs room for image_cache_size MiB plus the images being '
        'downloaded; unfinished downloads (.part files) are removed when the '
        'conductor starts. One conductor per directory.',
    ),
    cfg.IntOpt(
        'image_cache_size',
        default=20480,
        min=0,
        help='MiB the image cache may hold; above it, the least recently '
        'used images no deploy is using are deleted. An image larger '
        'than this is still deployed, and deleted afterwards. 0: no '
        'limit.',
    ),
    cfg.HostAddressOpt(
        'image_server_host',
        default='127.0.0.1',
        help="Address the conductor's image server listens on. The "
        'agents download images from it (through http_url): listen on '
        'an address of the provisioning network, not 127.0.0.1, when '
        'nodes are real machines.',
    ),
    cfg.PortOpt(
        'image_server_port',
        default=0,
        help="Port the conductor's image server listens on; 0 takes any "
        'free port (set one when a firewall or http_url needs it).',
    ),
    cfg.URIOpt(
        'http_url',
        schemes=['http', 'https'],
        help='Base URL the ramdisk agents download cached images from, '
        'e.g. http://192.0.2.10:8088: the agents must reach it. Unset: '
        'http://<image_server_host>:<listening port>. Set it when the '
        'server is behind a proxy or NAT, or listens on 0.0.0.0.',
    ),
    cfg.StrOpt(
        'default_boot_mode',
        default='uefi',
        choices=['uefi', 'bios'],
        help='Boot mode a partition image is laid out for (an EFI system '
        'partition for uefi) when neither instance_info deploy_boot_mode, '
        'the boot_mode capability of instance_info or properties, nor the '
        "node's boot_mode says (upstream's option).",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(DEPLOY_IMAGE_OPTS, group='deploy')


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [('deploy', DEPLOY_IMAGE_OPTS)]
