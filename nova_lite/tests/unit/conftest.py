"""Fixtures shared by the database-backed unit tests."""

from oslo_config import cfg
import pytest

from lite_common import context as lite_context
from nova_lite import conf as nova_conf
from nova_lite.tests import database


@pytest.fixture
def db(tmp_path):  # type: ignore[no-untyped-def]
    """A migrated SQLite file for this test only."""
    with database.temporary_database(
        f'sqlite:///{tmp_path / "nova.db"}'
    ) as manager:
        yield manager


@pytest.fixture
def ctx(db):  # type: ignore[no-untyped-def]
    return lite_context.get_admin_context()


@pytest.fixture
def conf():  # type: ignore[no-untyped-def]
    """nova_lite's options at their defaults, no config file read."""
    conf = cfg.ConfigOpts()
    nova_conf.register_all(conf)
    conf(
        [],
        project='nova-lite-test',
        default_config_files=[],
        default_config_dirs=[],
    )
    return conf
