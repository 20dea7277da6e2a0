"""This agent process as the holder of its host name.

Each start of a compute agent is a new *incarnation* (a random id); it
takes its host's compute service record at start-up and holds it until
it stops (see :mod:`nova_lite.db.service_identity` for the rules). The
:class:`Holder` keeps that record, takes the name, and is asked before
anything is destroyed (:class:`FencedDriver`): a process that was
replaced (frozen and found dead, or released by an operator) destroys
nothing when it wakes up, and stops.
"""

from collections.abc import Callable
import os
import socket
import threading
from typing import Any
import uuid

from oslo_log import log as logging

from lite_common import process_key
from nova_lite import exception
from nova_lite.objects import base as objects_base

LOG = logging.getLogger(__name__)
#: The longest a stopping agent waits to let its host name go.
LET_GO_SECONDS = 5


def this_process() -> str:
    """How an operator finds this process: ``pid N on MACHINE``."""
    return f'pid {os.getpid()} on {socket.gethostname()}'


def _own_key() -> str | None:
    key = process_key.this_process()
    return None if key is None else str(key)


class Holder:
    """The incarnation of this agent and its service record once
    taken."""

    def __init__(
        self, host: str, on_replaced: Callable[[], None] | None = None
    ) -> None:
        self.host = host
        self.incarnation = str(uuid.uuid4())
        self.service: Any = None
        self.replaced = False
        self._on_replaced = on_replaced

    def take(self, service: Any, down_time: float) -> None:
        """Take the host name with ``service`` (its record).

        :raises ComputeHostInUse: a live process holds it.
        """
        try:
            service.claim(
                self.incarnation,
                this_process(),
                down_time,
                process_key=_own_key(),
            )
        except exception.ComputeHostInUse as exc:
            # Proof, never a guess: same kernel boot and pid namespace,
            # and no process with the holder's pid and start time.
            if not process_key.proven_dead(exc.kwargs.get('process_key')):
                raise
            LOG.warning(
                'Compute %s: the process that held the host name '
                '(%s, incarnation %s) no longer runs on this '
                'machine; taking the name over',
                self.host,
                exc.kwargs.get('process'),
                exc.kwargs.get('incarnation'),
            )
            service.claim(
                self.incarnation,
                this_process(),
                down_time,
                exc.kwargs.get('incarnation'),
                process_key=_own_key(),
            )
        self.service = service
        LOG.info(
            'Compute %s: this process (%s) holds the host name as '
            'incarnation %s',
            self.host,
            this_process(),
            self.incarnation,
        )

    def check(self) -> None:
        """Nothing while this process holds the name (one query).

        :raises ComputeReplaced: it does not, or did not take it yet.
        :raises ServiceNotFound: its service record was deleted (the
            agent stays, as without a fence, but destroys nothing).
        """
        if self.replaced:
            raise exception.ComputeReplaced(
                host=self.host,
                incarnation=self.incarnation,
                holder='another process (found earlier)',
            )
        if self.service is None:
            raise exception.ComputeReplaced(
                host=self.host,
                incarnation=self.incarnation,
                holder='unknown: this process has not taken it yet',
            )
        try:
            self.service.check_held()
        except exception.ComputeReplaced as exc:
            self.found_replaced(exc)
            raise

    def found_replaced(self, exc: exception.ComputeReplaced) -> None:
        """Another process holds the name, or nobody: do no more work
        and have the process stop (once)."""
        if self.replaced:
            return
        self.replaced = True
        LOG.error('%s This process stops.', exc)
        if self._on_replaced is not None:
            self._on_replaced()

    def let_go(self) -> None:
        """A clean stop: the next agent may take the name at once.

        Waits at most LET_GO_SECONDS for the conductor (which may be
        stopping too): a stop is never held for an RPC timeout. A name
        not let go is free once service_down_time passed, or at once for
        a new agent on this machine (this process is gone then)."""
        if self.service is None or self.replaced:
            return
        api = type(self.service).indirection_api  # this thread's
        worker = threading.Thread(
            target=self._let_go,
            args=(api,),
            name=f'let-go-{self.host}',
            daemon=True,
        )
        worker.start()
        worker.join(LET_GO_SECONDS)
        if worker.is_alive():
            LOG.warning(
                'Compute %s: the conductor did not answer within '
                '%s s; the host name was not let go (it is free '
                'once service_down_time passed)',
                self.host,
                LET_GO_SECONDS,
            )

    def _let_go(self, api: Any) -> None:
        try:
            with objects_base.remote_objects(api):
                self.service.let_go()
        except Exception:  # the stop goes on; the name ages out
            LOG.exception(
                'Compute %s: could not let the host name go; '
                'it is free once service_down_time passed',
                self.host,
            )


class FencedDriver:
    """The virt driver, whose destroying methods first check that this
    process still holds its host name; everything else is passed on."""

    _FENCED = frozenset(
        {
            'destroy',
            'destroy_aside',
            'confirm_migration',
            'finish_revert_migration',
            'abort_migration',
            'migrate_disk_and_power_off',
        }
    )

    def __init__(self, driver: Any, holder: Holder) -> None:
        self._driver = driver
        self._holder = holder

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._driver, name)
        if name not in self._FENCED:
            return attribute

        def fenced(*args: Any, **kwargs: Any) -> Any:
            self._holder.check()
            return attribute(*args, **kwargs)

        return fenced
