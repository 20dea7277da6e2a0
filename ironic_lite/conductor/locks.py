"""The node locks of this process, and waiting for a lock.

A task claims its node in this process (:func:`claim`, by uuid and
conductor host) before it reserves it in the database, and gives the
claim back when it lets the node go. So no two tasks of one conductor
ever hold one node, even when a task whose lock was cleared (its
conductor was thought dead) still runs while the node is locked again:
the new lock waits until the stale task noticed and stopped. The claims
also tell which locks held in the database are held by no task (their
release failed): :func:`claimed`.

:func:`reserve` takes a node lock in the database, patiently if asked.
"""

import threading
import time
from typing import Any

from ironic_lite import exception
from ironic_lite.db import node_locks

#: host -> uuids of the nodes a task of this process claims for it.
_CLAIMED: dict[str, set[str]] = {}
_CLAIMED_LOCK = threading.Lock()
#: Seconds between two attempts of a patient :func:`reserve`.
RETRY_INTERVAL = 0.1


def claimed(host: str) -> set[str]:
    """Uuids of the nodes a task of this process claims as ``host``."""
    with _CLAIMED_LOCK:
        return set(_CLAIMED.get(host, ()))


def claim(host: str, node_uuid: str) -> bool:
    """Claim a node for a task of ``host``; False when one has it."""
    with _CLAIMED_LOCK:
        nodes = _CLAIMED.setdefault(host, set())
        if node_uuid in nodes:
            return False
        nodes.add(node_uuid)
        return True


def unclaim(host: str, node_uuid: str) -> None:
    """Give a claim back (idempotent)."""
    with _CLAIMED_LOCK:
        _CLAIMED.get(host, set()).discard(node_uuid)


def reserve(context: Any, host: str, node_uuid: str,
            patience: float = 0) -> dict[str, Any]:
    """Claim a node and take its lock for ``host``, trying again for
    ``patience`` seconds while another holder has it. The caller gives
    the claim back (:func:`unclaim`) when it lets the node go.

    :raises NodeLocked: (names the holder) still locked, or claimed by
        another task of this process.
    :raises NodeNotFound:
    """
    deadline = time.monotonic() + patience
    while True:
        if claim(host, node_uuid):
            try:
                # The claim proves no task of ours holds the node: a
                # reservation of ``host`` left in the database is stale.
                return node_locks.reserve(context, host, node_uuid,
                                          adopt=True)
            except BaseException as exc:
                unclaim(host, node_uuid)
                if not isinstance(exc, exception.NodeLocked):
                    raise
                error = exc
        else:
            error = exception.NodeLocked(node=node_uuid, host=host)
        if time.monotonic() + RETRY_INTERVAL > deadline:
            raise error
        time.sleep(RETRY_INTERVAL)
