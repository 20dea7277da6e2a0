"""What the fake clean steps record outside the node: the run log.

With ``[fake]run_log`` set, every synchronous fake clean step appends
two JSON lines to that file: ``start`` once it confirmed it holds the
node's lock, and ``end`` when it stops, with ``outcome``:

- ``done``: it finished, the lock confirmed at ``time``;
- ``fenced``: ``task.checkpoint()`` found the lock lost (another
  conductor took the node over); ``time`` is the last moment the lock
  was confirmed, so the step provably acted on the node only within
  ``[start, end]``, give or take the one unit of work it was in;
- ``aborted`` or ``failed``.

Each line also names the node, the step, its ``tag`` argument (if any),
the conductor (``[DEFAULT]host``), the process id and a run id. Every
conductor process of a deployment may append to one file: a line is
written with a single ``write()`` on a descriptor opened with
``O_APPEND``, so lines never interleave and survive a ``kill -9`` of
the writer. The file stops growing at ``[fake]run_log_max_bytes``.

Tests read the log to check that no clean step ran on one node from
two conductors at once and that a step that is not idempotent ran at
most once (``ironic_lite/tests/integration/test_fault_injection.py``).
"""

from collections.abc import Iterator
import contextlib
import json
import os
import threading
import time
from typing import Any
import uuid

from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.drivers import base

LOG = logging.getLogger(__name__)

#: Seconds of work between two ``task.checkpoint()`` calls.
SLICE = 0.2

_FULL: set[str] = set()
_FULL_LOCK = threading.Lock()


def append(conf: cfg.ConfigOpts, record: dict[str, Any]) -> None:
    """Append ``record`` as one JSON line (a no-op without a run log)."""
    path = conf.fake.run_log
    if not path:
        return
    line = (json.dumps(record, sort_keys=True) + '\n').encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        if os.fstat(fd).st_size + len(line) > conf.fake.run_log_max_bytes:
            with _FULL_LOCK:
                if path not in _FULL:
                    _FULL.add(path)
                    LOG.warning(
                        'The fake run log %s reached '
                        '[fake]run_log_max_bytes; no more runs '
                        'are recorded',
                        path,
                    )
            return
        os.write(fd, line)
    finally:
        os.close(fd)


class Run:
    """One recorded run of a step; :meth:`work` does its units."""

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        task: base.TaskLike,
        step: str,
        tag: str | None,
    ) -> None:
        self.conf = conf
        self.task = task
        self.confirmed = time.time()
        self.fields = {
            'node': task.node.uuid,
            'step': step,
            'tag': tag,
            'conductor': conf.host,
            'pid': os.getpid(),
            'run': str(uuid.uuid4()),
        }

    def checkpoint(self) -> None:
        """The lock is still ours (and no abort stops the step). The
        time taken before the query is the one recorded: the lock was
        seen held after it, even if the process was paused before it
        could read the clock again."""
        before = time.time()
        self.task.checkpoint()
        self.confirmed = before

    def work(self, seconds: float) -> None:
        """``seconds`` of pretended work, a checkpoint every
        :data:`SLICE` seconds."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(SLICE, left))
            self.checkpoint()

    def write(self, event: str, **extra: Any) -> None:
        append(self.conf, {**self.fields, 'event': event, **extra})


@contextlib.contextmanager
def recorded(
    conf: cfg.ConfigOpts,
    task: base.TaskLike,
    step: str,
    tag: str | None = None,
) -> Iterator[Run]:
    """Record the run of ``step`` around the block (see module doc)."""
    run = Run(conf, task, step, tag)
    run.checkpoint()
    run.write('start', time=run.confirmed)
    try:
        yield run
        run.checkpoint()
    except exception.NodeNotLocked:
        run.write('end', outcome='fenced', time=run.confirmed)
        raise
    except exception.CleanStepAborted:
        run.write('end', outcome='aborted', time=time.time())
        raise
    except Exception as exc:
        run.write(
            'end', outcome='failed', time=time.time(), error=str(exc)[:200]
        )
        raise
    run.write('end', outcome='done', time=run.confirmed)
