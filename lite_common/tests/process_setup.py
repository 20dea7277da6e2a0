"""What every test process sets up first (each tests folder's
conftest.py calls :func:`prepare`).

* The threading backend, before anything imports oslo_messaging, as
  every console script does.
* RPC servers that stop at once. An oslo.messaging server's worker
  threads (futurist's) wait for work in turns of ``MAX_IDLE_FOR`` (one
  second) and notice a stop only between turns, so each stop of an
  in-process stack waited about a second; the tests stop stacks
  hundreds of times (every gabbi file, most flow tests). A tenth of a
  second changes nothing else: the workers only look more often whether
  they should end. Daemons keep futurist's default.
"""

from lite_common import backend

#: Seconds an idle RPC worker thread waits before it looks whether its
#: server stopped.
STOP_NOTICE = 0.1


def prepare() -> None:
    backend.select_threading()
    # (imported after the backend is chosen: futurist looks for eventlet)
    import futurist._thread

    futurist._thread.ThreadWorker.MAX_IDLE_FOR = STOP_NOTICE
