"""One spelling per UUID.

A UUID may be written in upper or lower case, with or without dashes or
braces; stored and compared as written, ``ABC...`` and ``abc...`` would
be two ids, and a client could create the upper-case twin of another
project's id (on a database whose comparisons are case-sensitive: SQLite
and PostgreSQL, not MariaDB). Every client-chosen id that is a UUID is
stored, and looked up, in the canonical form: lower case with dashes.
"""

import uuid


def canonical(value: str) -> str:
    """``value`` in canonical form if it is a UUID, else unchanged."""
    try:
        return str(uuid.UUID(value))
    except (ValueError, TypeError, AttributeError):
        return value
