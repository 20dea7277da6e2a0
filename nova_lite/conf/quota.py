"""[quota]: the default limits of every project (as upstream Nova).

An administrator overrides them per project with ``PUT
/os-quota-sets/{project_id}``; -1 means unlimited. Instances, cores
and RAM are enforced when servers are created or resized; the others
are stored and shown for the clients that read them.
"""

from oslo_config import cfg

GROUP = 'quota'


def _limit(name: str, default: int, what: str) -> cfg.IntOpt:
    return cfg.IntOpt(
        name,
        default=default,
        min=-1,
        max=0x7FFFFFFF,
        help=f'{what} allowed per project by default (-1: unlimited).',
    )


quota_opts: list[cfg.Opt] = [
    _limit('instances', 10, 'Instances (servers)'),
    _limit('cores', 20, 'Instance cores (vCPUs)'),
    _limit('ram', 50 * 1024, 'Megabytes of instance RAM'),
    _limit('metadata_items', 128, 'Metadata items per instance'),
    _limit(
        'injected_files',
        5,
        'Injected files (shown before 2.57; '
        'not used: personality is not supported)',
    ),
    _limit(
        'injected_file_content_bytes',
        10 * 1024,
        'Bytes of content per injected file (shown before 2.57)',
    ),
    _limit(
        'injected_file_path_length',
        255,
        'Characters of an injected file path (shown before 2.57)',
    ),
    _limit('key_pairs', 100, 'Key pairs per user'),
    _limit('server_groups', 10, 'Server groups'),
    _limit('server_group_members', 10, 'Servers per server group'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(quota_opts, group=GROUP)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(GROUP, quota_opts)]
