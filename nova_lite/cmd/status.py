"""nova-lite-status: upgrade readiness checks (oslo.upgradecheck)."""

import sys
from typing import Any

from oslo_config import cfg
from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck
import sqlalchemy as sa

from nova_lite.cmd import common
from nova_lite.db import api as db_api
from nova_lite.db import migration
from nova_lite.db import models


def _count(query: Any) -> int:
    with db_api.get_engine().connect() as connection:
        return int(connection.execute(query).scalar() or 0)


def _links_check(query: Any, what: str) -> upgradecheck.Result:
    """A warning naming how many records lack an integer link."""
    missing = _count(query)
    if missing:
        return upgradecheck.Result(
            upgradecheck.Code.WARNING,
            f'{missing} {what}; run "nova-lite-manage db '
            f'online_data_migrations" (or restart their compute agents) '
            f'to link them.',
        )
    return upgradecheck.Result(upgradecheck.Code.SUCCESS)


class Checks(upgradecheck.UpgradeCommands):
    """Each check names what it found and what to do about it."""

    def _check_schema(self) -> upgradecheck.Result:
        version = migration.db_version(db_api.get_engine())
        if version is None:
            return upgradecheck.Result(
                upgradecheck.Code.FAILURE,
                'The database is empty: run "nova-lite-manage db sync".',
            )
        return upgradecheck.Result(
            upgradecheck.Code.SUCCESS, f'Schema revision {version}.'
        )

    def _check_node_links(self) -> upgradecheck.Result:
        cn = models.ComputeNode
        return _links_check(
            sa.select(sa.func.count())
            .select_from(cn)
            .where(cn.deleted == 0, cn.service_id.is_(None)),
            'compute node(s) have no service_id',
        )

    def _check_instance_links(self) -> upgradecheck.Result:
        inst = models.Instance
        return _links_check(
            sa.select(sa.func.count())
            .select_from(inst)
            .where(
                inst.deleted == 0,
                inst.node.is_not(None),
                inst.compute_id.is_(None),
            ),
            'instance(s) have a node but no compute_id',
        )

    def _check_migration_links(self) -> upgradecheck.Result:
        mig = models.Migration
        return _links_check(
            sa.select(sa.func.count())
            .select_from(mig)
            .where(
                mig.deleted == 0,
                mig.dest_node.is_not(None),
                mig.dest_compute_id.is_(None),
            ),
            'migration(s) have a dest_node but no dest_compute_id',
        )

    def _check_duplicate_nodes(self) -> upgradecheck.Result:
        cn = models.ComputeNode
        query = (
            sa.select(cn.hypervisor_hostname, sa.func.count().label('records'))
            .where(cn.deleted == 0)
            .group_by(cn.hypervisor_hostname)
            .having(sa.func.count() > 1)
        )
        with db_api.get_engine().connect() as connection:
            dupes = connection.execute(query).all()
        if not dupes:
            return upgradecheck.Result(upgradecheck.Code.SUCCESS)
        listing = ', '.join(
            f'{name} ({count} records)' for name, count in dupes
        )
        return upgradecheck.Result(
            upgradecheck.Code.WARNING,
            f'Hypervisors with more than one compute node record: '
            f'{listing}. A host was probably renamed without '
            f'"nova-lite-manage compute rename"; see "openstack hypervisor '
            f'list" and delete the stale service.',
        )

    _upgrade_checks = (
        ('Database schema', _check_schema),
        ('Compute node service links', _check_node_links),
        ('Instance compute node links', _check_instance_links),
        ('Migration destination links', _check_migration_links),
        ('Duplicate compute node records', _check_duplicate_nodes),
        ('Policy file', (common_checks.check_policy_json, {'conf': cfg.CONF})),
    )


def main() -> int:
    conf = cfg.CONF
    upgradecheck.register_cli_options(conf, Checks())
    common.load_config(sys.argv[1:], 'nova-lite-status', conf)

    def body() -> int:
        db_api.configure(conf, command=True)
        # A server that cannot be reached is one clear line (from
        # run_daemon), not a traceback per check.
        with db_api.get_engine().connect():
            pass
        return upgradecheck.run(conf)

    return common.run_daemon('nova-lite-status', body)
