"""ironic-lite-status: upgrade readiness checks (oslo.upgradecheck).

    ironic-lite-status --config-file FILE upgrade check

Exit code 0: ready, 1: warnings, 2: failures (oslo.upgradecheck's).
"""

import sys

from alembic import script as alembic_script
from oslo_config import cfg
from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck
import sqlalchemy as sa

from ironic_lite.cmd import common
from ironic_lite.db import api as db_api
from ironic_lite.db import migration
from ironic_lite.db import models
from lite_common import db as lite_db

Result = upgradecheck.Result
Code = upgradecheck.Code


def head_revision() -> str:
    """The newest revision this code ships."""
    config = lite_db.alembic_cfg(migration.ALEMBIC_DIR, 'sqlite://')
    scripts = alembic_script.ScriptDirectory.from_config(config)
    return str(scripts.get_current_head())


class Checks(upgradecheck.UpgradeCommands):
    """Each check names what it found and what to do about it."""

    def _check_schema(self) -> Result:
        version = migration.db_version(db_api.get_engine())
        head = head_revision()
        if version is None:
            return Result(
                Code.FAILURE,
                'The database is empty: run "ironic-lite-dbsync upgrade".',
            )
        if version != head:
            return Result(
                Code.FAILURE,
                f'Schema revision {version}, this '
                f'code needs {head}: run "ironic-lite-dbsync '
                f'upgrade".',
            )
        return Result(Code.SUCCESS, f'Schema revision {version} (head).')

    def _check_conductors(self) -> Result:
        cond = models.Conductor
        query = (
            sa.select(sa.func.count())
            .select_from(cond)
            .where(cond.online.is_(True))
        )
        try:
            with db_api.get_engine().connect() as connection:
                online = int(connection.execute(query).scalar() or 0)
        except Exception as exc:  # no schema yet: said by the first check
            return Result(
                Code.FAILURE,
                f'Cannot read the conductors '
                f'({type(exc).__name__}): run "ironic-lite-dbsync '
                f'upgrade" first.',
            )
        if not online:
            return Result(
                Code.WARNING,
                'No conductor is registered '
                'online: nodes cannot be managed until an '
                'ironic-lite-conductor runs.',
            )
        return Result(Code.SUCCESS, f'{online} conductor(s) online.')

    _upgrade_checks = (
        ('Database schema', _check_schema),
        ('Conductors', _check_conductors),
        ('Policy file', (common_checks.check_policy_json, {'conf': cfg.CONF})),
    )


def main() -> int:
    conf = cfg.CONF
    upgradecheck.register_cli_options(conf, Checks())
    common.load_config(sys.argv[1:], 'ironic-lite-status', conf)

    def body() -> int:
        db_api.configure(conf, command=True)
        # A server that cannot be reached is one clear line (from
        # run_daemon), not a traceback per check.
        with db_api.get_engine().connect():
            pass
        return upgradecheck.run(conf)

    return common.run_daemon('ironic-lite-status', body)


if __name__ == '__main__':
    sys.exit(main())
