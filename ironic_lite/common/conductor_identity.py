"""Who a conductor process is: its host name and its incarnation.

Conductors are named by ``[DEFAULT]host``: the hash ring, the RPC
server and every node lock (``nodes.reservation``) use that name. But a
name is not a process: a restart racing a hung process, a second unit
started by mistake or a restored VM snapshot can run two processes
under one name. So each process start gets an *incarnation*, a fresh
random id, and the conductors table records which incarnation holds
each host name (:func:`ironic_lite.db.conductors.register`). A node
lock of host H counts only for the process whose incarnation is the
one recorded for H: every conditional write under the lock checks it
(:mod:`ironic_lite.db.node_locks`), so a process that was replaced
(found dead while frozen, say) cannot write anything once it wakes up.
"""

import dataclasses
import os
import socket
import uuid


@dataclasses.dataclass(frozen=True)
class ConductorIdentity:
    """One conductor process: the host name it serves and its
    incarnation."""

    host: str
    incarnation: str

    @classmethod
    def new(cls, host: str) -> 'ConductorIdentity':
        """The identity of a process starting now as ``host``."""
        return cls(host, str(uuid.uuid4()))

    def __str__(self) -> str:
        return f'{self.host} (incarnation {self.incarnation})'


def this_process() -> str:
    """How an operator finds this process: ``pid N on MACHINE``."""
    return f'pid {os.getpid()} on {socket.gethostname()}'
