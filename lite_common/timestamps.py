"""The timestamps the database stores, without the database: a compute
agent stamps what it sends its conductor with them too, and imports
neither :mod:`lite_common.db` nor SQLAlchemy."""

import datetime


def utcnow() -> datetime.datetime:
    """Naive UTC now, the form every timestamp column stores."""
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
