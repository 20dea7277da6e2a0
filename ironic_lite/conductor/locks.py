"""The node locks of this process, and waiting for a lock.

:func:`reserve` takes a node lock in the database, patiently if asked;
:func:`hold` records in memory which locks the tasks of this process
hold, per conductor host, so that a lock held in the database but by
no task (its release failed) can be found: :func:`held_nodes`.
"""

import threading
import time
from typing import Any

from ironic_lite import exception
from ironic_lite.db import nodes as db_nodes

#: host -> ids of the nodes whose lock this process holds for it.
_HELD: dict[str, set[int]] = {}
_HELD_LOCK = threading.Lock()
#: Seconds between two attempts of a patient :func:`reserve`.
RETRY_INTERVAL = 0.1


def held_nodes(host: str) -> set[int]:
    """Ids of the nodes this process holds the lock of as ``host``."""
    with _HELD_LOCK:
        return set(_HELD.get(host, ()))


def hold(host: str, node_id: int, held: bool) -> None:
    """Record that this process holds (or no longer holds) a lock."""
    with _HELD_LOCK:
        nodes = _HELD.setdefault(host, set())
        if held:
            nodes.add(node_id)
        else:
            nodes.discard(node_id)


def reserve(context: Any, host: str, node_id: int | str,
            patience: float = 0) -> dict[str, Any]:
    """Take the lock of a node for ``host``, trying again for
    ``patience`` seconds while another holder has it.

    :raises NodeLocked: (names the holder) still locked.
    :raises NodeNotFound:
    """
    deadline = time.monotonic() + patience
    while True:
        try:
            return db_nodes.reserve(context, host, node_id)
        except exception.NodeLocked:
            if time.monotonic() + RETRY_INTERVAL > deadline:
                raise
        time.sleep(RETRY_INTERVAL)
