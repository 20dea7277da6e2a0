"""The ironic_lite database: its transaction context and shared helpers.

Access functions live in one module per table (``nodes``,
``conductors``), as module-level functions. Only ironic-lite-api and
ironic-lite-conductor call them.
"""


from oslo_config import cfg
from oslo_db import api as oslo_db_api
import sqlalchemy as sa

from ironic_lite import exception
from lite_common import db as lite_db

context_manager = lite_db.make_context_manager()

#: Runs a function that is one whole transaction again after a deadlock
#: or a lost connection (a database restart, a connection killed on the
#: server), a few times over about three seconds. Only for functions
#: whose second run is safe after a first whose commit went unseen:
#: their writes are conditional (a reserve, a write at a revision) or
#: write the same values again.
retry_on_disconnect = oslo_db_api.wrap_db_retry(
    retry_interval=0.2, max_retries=5, inc_retry_interval=True,
    max_retry_interval=1.0, retry_on_disconnect=True,
    retry_on_deadlock=True)


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


def check_sort(sort_key: str, sort_dir: str, allowed: tuple[str, ...]) -> None:
    """:raises InvalidParameterValue: a sort key not in ``allowed`` or a
    direction other than asc and desc (upstream's messages)."""
    if sort_key not in allowed:
        raise exception.InvalidParameterValue(
            err=f'The sort_key value {sort_key} is an invalid field for '
            'sorting')
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err=f'Invalid sort direction: {sort_dir}. Acceptable values '
            "are 'asc' or 'desc'")
