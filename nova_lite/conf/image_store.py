"""[image_store]: where the Image API keeps the bytes of images.

``PUT /image/v2/images/{id}/file`` streams an image's data into one file
of the directory (mode 0600, the directory 0700), computing its size,
MD5 ``checksum`` and SHA-512 ``os_hash_value`` as it goes;
``GET .../file`` serves it back; deleting the image deletes the file.
"""

from oslo_config import cfg

GROUP = 'image_store'

image_store_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        'directory',
        default='$state_path/images',
        help='Directory of the image data files (created 0700 on the '
        'first upload). Every nova-lite-api of a deployment must see the '
        'same directory (a shared file system) or run on one host.',
    ),
    cfg.IntOpt(
        'project_storage_quota',
        default=-1,
        min=-1,
        help='Bytes the images of one project may hold together (-1: '
        'unlimited). An upload that would go past it is refused with a '
        '413 and the image stays queued, as Glance answers.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(image_store_opts, group=GROUP)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(GROUP, image_store_opts)]
