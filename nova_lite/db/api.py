"""The nova_lite database: its transaction context and shared helpers.

Access functions live in one module per table (``services``,
``compute_nodes``, ``instances``, ``migrations``, ``flavors``, ``quotas``,
``images``), as module-level functions. Only nova-lite-api and
nova-lite-conductor call them; compute agents reach the database
through the conductor's object indirection.
"""

from typing import Any
from typing import cast

from oslo_config import cfg
import sqlalchemy as sa

from lite_common import db as lite_db
from lite_common import db_retry
from nova_lite import exception
from nova_lite.common import has_database

context_manager = lite_db.make_context_manager()

#: Every function that reads or writes the database is decorated with
#: this: it runs again after a transient error (a deadlock, a lost or
#: refused connection, a full pool) while the attempt cannot have
#: stored a change, for as long as its caller may wait
#: (:mod:`lite_common.db_retry`): an API request briefly, the
#: conductor's flows for ``[database]flow_retry_timeout``.
retried = db_retry.retried


def configure(conf: cfg.ConfigOpts, command: bool = False) -> None:
    """Point the transaction context at ``[database]connection``
    (``command``: see :func:`lite_common.db.configure_database`): this
    process has a database from now on, and the versioned objects run
    their remotable methods' bodies here (see
    :mod:`nova_lite.common.has_database`)."""
    if not conf.database.connection:
        raise exception.ConfigError(
            '[database]connection is not set: nova-lite-api and '
            'nova-lite-conductor need a database URL such as '
            'mysql+pymysql://nova:PASSWORD@HOST/nova_lite.'
        )
    lite_db.configure_database(context_manager, conf, command)
    has_database.enable()


def get_engine() -> sa.engine.Engine:
    return cast('sa.engine.Engine', context_manager.writer.get_engine())


def soft_delete_values(row_id: int) -> dict[str, Any]:
    return {'deleted': row_id, 'deleted_at': lite_db.utcnow()}


as_dict = lite_db.as_dict
