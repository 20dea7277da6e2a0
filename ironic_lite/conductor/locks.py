"""The node locks of this process, and waiting for a lock.

A task claims its node in this process (:func:`claim`, by uuid and
conductor identity) before it reserves it in the database, and gives the
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
from ironic_lite.common.conductor_identity import ConductorIdentity
from ironic_lite.db import node_locks
from lite_common.context import RequestContext

#: conductor -> uuids of the nodes a task of this process claims for it.
_CLAIMED: dict[ConductorIdentity, set[str]] = {}
_CLAIMED_LOCK = threading.Lock()
#: Seconds between two attempts of a patient :func:`reserve`.
RETRY_INTERVAL = 0.1


def claimed(holder: ConductorIdentity) -> set[str]:
    """Uuids of the nodes a task of this process claims as ``holder``."""
    with _CLAIMED_LOCK:
        return set(_CLAIMED.get(holder, ()))


def claim(holder: ConductorIdentity, node_uuid: str) -> bool:
    """Claim a node for a task of ``holder``; False when one has it."""
    with _CLAIMED_LOCK:
        nodes = _CLAIMED.setdefault(holder, set())
        if node_uuid in nodes:
            return False
        nodes.add(node_uuid)
        return True


def unclaim(holder: ConductorIdentity, node_uuid: str) -> None:
    """Give a claim back (idempotent)."""
    with _CLAIMED_LOCK:
        _CLAIMED.get(holder, set()).discard(node_uuid)


def reserve(
    context: RequestContext,
    holder: ConductorIdentity,
    node_uuid: str,
    patience: float = 0,
) -> dict[str, Any]:
    """Claim a node and take its lock for ``holder``, trying again for
    ``patience`` seconds while another holder has it. The caller gives
    the claim back (:func:`unclaim`) when it lets the node go.

    :raises NodeLocked: (names the holder) still locked, or claimed by
        another task of this process.
    :raises ConductorReplaced: ``holder`` no longer holds its host name.
    :raises NodeNotFound:
    """
    deadline = time.monotonic() + patience
    while True:
        if claim(holder, node_uuid):
            try:
                # The claim proves no task of ours holds the node: a
                # reservation of our host left in the database is stale.
                return node_locks.reserve(
                    context, holder, node_uuid, adopt=True
                )
            except BaseException as exc:
                unclaim(holder, node_uuid)
                if not isinstance(exc, exception.NodeLocked):
                    raise
                error = exc
        else:
            error = exception.NodeLocked(node=node_uuid, host=holder.host)
        if time.monotonic() + RETRY_INTERVAL > deadline:
            raise error
        time.sleep(RETRY_INTERVAL)
