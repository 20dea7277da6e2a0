"""[inspection_rules] options (API 1.96; upstream Ironic's names and
defaults)."""

from oslo_config import cfg

group = cfg.OptGroup('inspection_rules', title='Inspection rules')

opts: list[cfg.Opt] = [
    cfg.StrOpt(
        'built_in_rules',
        mutable=True,
        help='Path to a YAML file holding a list of built-in inspection '
        'rules (the fields of POST /v1/inspection_rules). They apply '
        'with the rules of the API but are not shown by it and cannot be '
        'changed through it. A rule without a uuid gets '
        '00000000-0000-0000-0000-<its index>. A file that cannot be read '
        'or holds an invalid rule fails every inspection that applies '
        'rules, with the reason in last_error, as upstream.',
    ),
    cfg.StrOpt(
        'mask_secrets',
        default='always',
        choices=[
            ('always', 'secrets are masked for every rule'),
            ('never', 'rules see secrets'),
            ('sensitive', 'only rules marked sensitive see them'),
        ],
        help='Whether the inspection data handed to the rules has its '
        'secrets (password, auth_token, bmc_password) masked.',
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(cfg.OptGroup(group.name, title=group.title))
    conf.register_opts(opts, group=group.name)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(group.name, opts)]
