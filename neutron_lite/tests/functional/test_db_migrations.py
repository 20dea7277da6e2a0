"""The neutron_lite models and alembic migrations describe one schema,
on SQLite, MariaDB and PostgreSQL (the ``db_url`` fixture)."""

from lite_common.tests import backends
from lite_common.tests import schema_contract
from neutron_lite.db import api as db_api
from neutron_lite.db import migration
from neutron_lite.db import models

db_url = backends.db_url
engine = schema_contract.engine_fixture(db_api)

HEAD = '0003'


class TestSchema(schema_contract.MigrationsMatchModels):
    migration = migration
    metadata = models.Base.metadata
    head = HEAD
