"""ironic-lite-status upgrade check on a real SQLite file."""

from oslo_upgradecheck import upgradecheck

from ironic_lite.cmd import status
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.db import api as db_api
from ironic_lite.db import conductors as db_conductors
from ironic_lite.db import migration


def test_schema_at_head_and_conductors(ctx):
    checks = status.Checks()
    schema = checks._check_schema()
    assert schema.code == upgradecheck.Code.SUCCESS
    assert status.head_revision() in schema.details
    assert checks._check_conductors().code == upgradecheck.Code.WARNING
    db_conductors.register(ctx, ConductorIdentity.new('c1'), ['fake-hardware'])
    assert checks._check_conductors().code == upgradecheck.Code.SUCCESS


def test_a_database_behind_head_fails(tmp_path):
    url = f'sqlite:///{tmp_path}/old.db'
    manager = db_api.context_manager.make_new_manager()
    manager.configure(connection=url)
    restore = db_api.context_manager.patch_factory(manager)
    try:
        checks = status.Checks()
        empty = checks._check_schema()
        assert empty.code == upgradecheck.Code.FAILURE
        assert 'ironic-lite-dbsync upgrade' in empty.details
        no_table = checks._check_conductors()
        assert no_table.code == upgradecheck.Code.FAILURE
        assert 'ironic-lite-dbsync upgrade' in no_table.details
        engine = manager.writer.get_engine()
        migration.db_sync(engine, status.head_revision() + '-1')
        behind = checks._check_schema()
        assert behind.code == upgradecheck.Code.FAILURE
        assert 'needs ' + status.head_revision() in behind.details
    finally:
        restore()
        manager.dispose_pool()
