"""neutron-lite-db-manage: create or upgrade the neutron_lite schema.

    neutron-lite-db-manage [--config-file FILE] [upgrade|version]

``upgrade`` (the default) applies every migration (running it again is
a no-op); ``version`` prints the revision the database is at. Both read
``[database]connection`` (:mod:`lite_common.db_command`).
"""

import sys

from oslo_config import cfg

from lite_common import db_command
from neutron_lite import exception
from neutron_lite.db import api as db_api
from neutron_lite.db import migration

SCHEMA = db_command.Schema(
    prog='neutron-lite-db-manage',
    project='neutron-lite',
    configure=db_api.configure,
    get_engine=db_api.get_engine,
    db_sync=migration.db_sync,
    db_version=migration.db_version,
    config_error=exception.ConfigError,
)


def main(
    argv: list[str] | None = None, conf: cfg.ConfigOpts | None = None
) -> int:
    return db_command.main(SCHEMA, argv, conf)


if __name__ == '__main__':
    sys.exit(main())
