"""The neutron_lite database: its transaction context.

Access functions live in one module per resource (``networks``,
``subnets``, ``ports``; addresses in ``ipam``), as module-level
functions. Only neutron-lite-server calls them.
"""

from typing import cast

from oslo_config import cfg
import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common import db_retry
from neutron_lite import exception

context_manager = lite_db.make_context_manager()

#: Every function that reads or writes the database is decorated with
#: one of these (:mod:`lite_common.db_retry`): ``retried`` runs it again
#: after a transient error while the attempt cannot have stored a
#: change.
retried = db_retry.retried


def configure(conf: cfg.ConfigOpts, command: bool = False) -> None:
    """Point the transaction context at ``[database]connection``."""
    if not conf.database.connection:
        raise exception.ConfigError(
            reason='[database]connection is not set: neutron-lite-server '
            'and neutron-lite-db-manage need a database URL such as '
            'mysql+pymysql://neutron:PASSWORD@HOST/neutron_lite.'
        )
    lite_db.configure_database(context_manager, conf, command)


def get_engine() -> sa.engine.Engine:
    return cast('sa.engine.Engine', context_manager.writer.get_engine())


as_dict = lite_db.as_dict
