"""The ironic_lite database: its transaction context and shared helpers.

Access functions live in one module per table (``nodes``,
``conductors``), as module-level functions. Only ironic-lite-api and
ironic-lite-conductor call them.
"""

from typing import cast

from oslo_config import cfg
import sqlalchemy as sa

from ironic_lite import exception
from lite_common import db as lite_db
from lite_common import db_retry

context_manager = lite_db.make_context_manager()

#: Every function that reads or writes the database is decorated with
#: one of these: it runs again after a transient error (a deadlock, a
#: lost or refused connection, a full pool) for as long as its caller
#: may wait (:mod:`lite_common.db_retry`): an API request briefly, a
#: conductor's flow for ``[database]flow_retry_timeout``. ``retried``
#: only while the attempt cannot have stored a change;
#: ``retry_on_disconnect`` also after a first run whose commit went
#: unseen: for functions whose second run is then harmless (their writes
#: are conditional, a reserve, a write at a revision, or write the same
#: values again).
retried = db_retry.retried
retry_on_disconnect = db_retry.retried(idempotent=True)


def configure(conf: cfg.ConfigOpts, command: bool = False) -> None:
    """Point the transaction context at ``[database]connection``
    (``command``: see :func:`lite_common.db.configure_database`)."""
    if not conf.database.connection:
        raise exception.ConfigError(
            reason='[database]connection is not set: ironic-lite-api, '
            'ironic-lite-conductor and ironic-lite-dbsync need a database '
            'URL such as mysql+pymysql://ironic:PASSWORD@HOST/ironic_lite.'
        )
    lite_db.configure_database(context_manager, conf, command)


def get_engine() -> sa.engine.Engine:
    return cast('sa.engine.Engine', context_manager.writer.get_engine())


as_dict = lite_db.as_dict


def check_sort(sort_key: str, sort_dir: str, allowed: tuple[str, ...]) -> None:
    """:raises InvalidParameterValue: a sort key not in ``allowed`` or a
    direction other than asc and desc (upstream's messages)."""
    if sort_key not in allowed:
        raise exception.InvalidParameterValue(
            err=f'The sort_key value {sort_key} is an invalid field for '
            'sorting'
        )
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidParameterValue(
            err=f'Invalid sort direction: {sort_dir}. Acceptable values '
            "are 'asc' or 'desc'"
        )
