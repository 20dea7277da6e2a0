"""The ironic_lite database: its transaction context and shared helpers.

Access functions live in one module per table (``nodes``,
``conductors``), as module-level functions. Only ironic-lite-api and
ironic-lite-conductor call them.
"""


from oslo_config import cfg
import sqlalchemy as sa

from ironic_lite import exception
from lite_common import db as lite_db

context_manager = lite_db.make_context_manager()


def configure(conf: cfg.ConfigOpts) -> None:
    """Point the transaction context at ``[database]connection``."""
    if not conf.database.connection:
        raise exception.ConfigError(
            reason='[database]connection is not set: ironic-lite-api, '
            'ironic-lite-conductor and ironic-lite-dbsync need a database '
            'URL such as mysql+pymysql://ironic:PASSWORD@HOST/ironic_lite.')
    lite_db.configure_database(context_manager, conf)


def get_engine() -> sa.engine.Engine:
    return context_manager.writer.get_engine()


as_dict = lite_db.as_dict
