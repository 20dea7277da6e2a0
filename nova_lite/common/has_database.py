"""Whether this process has a database.

nova-lite-api, nova-lite-conductor and nova-lite-manage (and the
all-in-one, which runs the first two) have one once
:func:`nova_lite.db.api.configure` has pointed the transaction context
at ``[database]connection``, and keep it; a compute agent never has
one. The tests' database (``nova_lite.tests.database``) turns it on
too.

The versioned objects read it
(:func:`nova_lite.objects.base.database_module`): the body of a
remotable method, which reads or writes the database, runs only where
there is one; elsewhere the call goes to the conductor through the
objects' indirection. This module imports nothing, so that the database
layer and the objects may both import it.
"""


class _Presence:
    present = False


_PRESENCE = _Presence()


def enable() -> None:
    """This process has a database (see the module docstring)."""
    _PRESENCE.present = True


def enabled() -> bool:
    return _PRESENCE.present
