"""Driver interfaces and the ``@clean_step`` decorator.

A node is driven through three interfaces, each a class loaded by
stevedore: power, management and deploy. Any interface method decorated
with :func:`clean_step` is a clean step; :meth:`BaseInterface.get_clean_steps`
lists them and :meth:`BaseInterface.execute_clean_step` runs one.

Asynchronous clean steps, the contract with the conductor:

1. A step that finishes before it returns returns ``None``.
2. A step that goes on after it returns (hardware that works on its
   own, a ramdisk that calls back) records what it needs in
   ``task.node.driver_internal_info`` and returns ``states.CLEANWAIT``.
   The conductor then processes ``wait`` (node in ``clean wait``) and
   keeps the step in ``node.clean_step``.
3. Every ``[conductor]clean_step_poll_interval`` seconds the conductor
   calls :meth:`BaseInterface.poll_clean_step` on the interface named
   by ``node.clean_step['interface']``: ``False`` means still running;
   ``True`` means finished, and the conductor processes ``resume`` and
   goes on with the next step; an exception means the step failed
   (``fail``, node in ``clean failed``, the message in ``last_error``).
   The conductor first polls without the node lock, on a copy of the
   node whose changes are thrown away; when that poll answers ``True``
   or raises, it takes the lock and polls again, and only that answer
   (and the changes it made to the node) counts. A poll must therefore
   be safe to repeat.
4. A node in ``clean wait`` longer than ``[conductor]
   clean_callback_timeout`` fails the same way.
5. ``abort`` is accepted in ``clean wait`` only when
   ``node.clean_step['abortable']`` is true; the conductor first calls
   :meth:`BaseInterface.abort_clean_step` so the driver can stop the
   work and forget its bookkeeping.

Everything a step keeps between calls lives in the node, never in the
interface object, so any conductor can take over the node.
"""

import abc
from collections.abc import Callable
import copy
import dataclasses
from typing import Any
from typing import Protocol
from typing import TypeVar

from oslo_config import cfg

from ironic_lite import exception
from ironic_lite.common import states

F = TypeVar('F', bound=Callable[..., Any])

INTERFACE_TYPES = ('power', 'management', 'deploy')
_ARGSINFO_KEYS = frozenset({'description', 'required'})


class NodeLike(Protocol):
    """What interfaces read and change on a node."""

    uuid: str
    power_state: str | None
    provision_state: str
    properties: dict[str, Any]
    driver_internal_info: dict[str, Any]
    clean_step: dict[str, Any]


class TaskLike(Protocol):
    """What an interface method receives: the locked node and the
    request context it acts for."""

    # Read-only in the protocol, so that a task may hold any node class
    # that has these fields (a mutable member would have to be exactly
    # NodeLike).
    @property
    def node(self) -> NodeLike: ...

    context: Any


@dataclasses.dataclass(frozen=True)
class StepInfo:
    """The ``@clean_step`` arguments, kept on the decorated function."""

    priority: int
    abortable: bool
    argsinfo: dict[str, dict[str, Any]] | None


def _validate_argsinfo(argsinfo: Any) -> None:
    if argsinfo is None:
        return
    if not isinstance(argsinfo, dict):
        raise exception.InvalidParameterValue(
            err=f'argsinfo must be a dict, not {argsinfo!r}')
    for name, info in argsinfo.items():
        where = f'argsinfo of argument {name!r}'
        if not isinstance(name, str) or not isinstance(info, dict):
            raise exception.InvalidParameterValue(
                err=f'{where} must map a name to a dict')
        unknown = set(info) - _ARGSINFO_KEYS
        if unknown:
            raise exception.InvalidParameterValue(
                err=f'{where} has unknown keys {sorted(unknown)}')
        if not isinstance(info.get('description'), str):
            raise exception.InvalidParameterValue(
                err=f'{where} needs a "description" string')
        if not isinstance(info.get('required', False), bool):
            raise exception.InvalidParameterValue(
                err=f'{where}: "required" must be a boolean')


def clean_step(priority: int, abortable: bool = False,
               argsinfo: dict[str, dict[str, Any]] | None = None
               ) -> Callable[[F], F]:
    """Mark an interface method ``method(self, task, **args)`` as a
    clean step.

    :param priority: automated cleaning runs steps of priority > 0,
        highest first; 0 means manual cleaning only.
    :param abortable: whether ``abort`` may interrupt the step while
        it runs asynchronously.
    :param argsinfo: the arguments the step accepts, as
        ``{name: {'description': str, 'required': bool}}``.
    :raises InvalidParameterValue: on invalid decorator arguments.
    """
    if isinstance(priority, bool) or not isinstance(priority, int) \
            or priority < 0:
        raise exception.InvalidParameterValue(
            err=f'clean step priority must be an integer >= 0, '
            f'not {priority!r}')
    if not isinstance(abortable, bool):
        raise exception.InvalidParameterValue(
            err=f'abortable must be a boolean, not {abortable!r}')
    _validate_argsinfo(argsinfo)

    def decorate(func: F) -> F:
        func._clean_step = StepInfo(  # type: ignore[attr-defined]
            priority, abortable, argsinfo)
        return func

    return decorate


def validate_step_args(step: dict[str, Any],
                       argsinfo: dict[str, dict[str, Any]] | None) -> None:
    """Check ``step['args']`` against the step's ``argsinfo``.

    :raises InvalidParameterValue: unknown or missing required args.
    """
    name = f'{step.get("interface")}.{step.get("step")}'
    args = step.get('args') or {}
    if not isinstance(args, dict):
        raise exception.InvalidParameterValue(
            err=f'Clean step {name}: args must be an object')
    argsinfo = argsinfo or {}
    unknown = sorted(set(args) - set(argsinfo))
    if unknown:
        raise exception.InvalidParameterValue(
            err=f'Clean step {name} does not accept the argument(s) '
            f'{", ".join(unknown)}; it accepts: '
            f'{", ".join(sorted(argsinfo)) or "none"}')
    missing = sorted(arg for arg, info in argsinfo.items()
                     if info.get('required') and arg not in args)
    if missing:
        raise exception.InvalidParameterValue(
            err=f'Clean step {name} requires the argument(s) '
            f'{", ".join(missing)}')


class BaseInterface:
    """What every interface has: a type, clean steps, config access."""

    interface_type: str = 'base'

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf

    def validate(self, task: TaskLike) -> None:
        """Check the node has what this interface needs; raise
        InvalidParameterValue if not."""

    def clean_step_definitions(self) -> list[dict[str, Any]]:
        """Every clean step of this interface, whatever the node:
        dicts with step, priority, interface, abortable, argsinfo."""
        steps = []
        for name in sorted(dir(type(self))):
            info = getattr(getattr(type(self), name), '_clean_step', None)
            if isinstance(info, StepInfo):
                steps.append({
                    'step': name, 'priority': info.priority,
                    'interface': self.interface_type,
                    'abortable': info.abortable,
                    'argsinfo': copy.deepcopy(info.argsinfo),
                })
        return steps

    def get_clean_steps(self, task: TaskLike) -> list[dict[str, Any]]:
        """The clean steps available for ``task.node``. Interfaces
        whose steps depend on the node override this."""
        return self.clean_step_definitions()

    def execute_clean_step(self, task: TaskLike,
                           step: dict[str, Any]) -> str | None:
        """Run ``step`` (``{'interface', 'step', 'args'}``).

        :returns: None when done, ``states.CLEANWAIT`` when the step
            goes on asynchronously (see the module docstring).
        :raises CleanStepNotFound: no such step on this interface.
        :raises InvalidParameterValue: invalid args.
        """
        name = step.get('step')
        method = getattr(self, str(name), None) if name else None
        info = getattr(method, '_clean_step', None)
        if (step.get('interface') != self.interface_type
                or method is None or not isinstance(info, StepInfo)):
            raise exception.CleanStepNotFound(
                interface_type=self.interface_type, step=name)
        validate_step_args(step, info.argsinfo)
        result = method(task, **(step.get('args') or {}))
        if result not in (None, states.CLEANWAIT):
            raise exception.NodeCleaningFailure(
                node=task.node.uuid,
                reason=f'clean step {self.interface_type}.{name} '
                f'returned {result!r}')
        return result

    def poll_clean_step(self, task: TaskLike) -> bool:
        """Whether the asynchronous step in ``task.node.clean_step`` has
        finished; raise to fail it. Default: never finishes by polling
        (a callback or the timeout ends it)."""
        return False

    def abort_clean_step(self, task: TaskLike) -> None:
        """Stop the asynchronous step in ``task.node.clean_step``."""


class PowerInterface(BaseInterface, abc.ABC):
    interface_type = 'power'

    @abc.abstractmethod
    def get_power_state(self, task: TaskLike) -> str:
        """The current power state: ``states.POWER_ON``/``POWER_OFF``."""

    @abc.abstractmethod
    def set_power_state(self, task: TaskLike, power_state: str,
                        timeout: int | None = None) -> None:
        """Switch the node to ``power_state``."""

    @abc.abstractmethod
    def reboot(self, task: TaskLike, timeout: int | None = None) -> None:
        """Power cycle the node; it ends powered on."""


class ManagementInterface(BaseInterface, abc.ABC):
    interface_type = 'management'

    @abc.abstractmethod
    def get_boot_device(self, task: TaskLike) -> dict[str, Any]:
        """``{'boot_device': str | None, 'persistent': bool | None}``."""

    @abc.abstractmethod
    def set_boot_device(self, task: TaskLike, device: str,
                        persistent: bool = False) -> None:
        """Boot the node from ``device`` next time (or every time)."""


class DeployInterface(BaseInterface, abc.ABC):
    interface_type = 'deploy'

    @abc.abstractmethod
    def deploy(self, task: TaskLike) -> str | None:
        """Put the instance on the node: None when done,
        ``states.DEPLOYWAIT`` when it goes on asynchronously."""

    @abc.abstractmethod
    def tear_down(self, task: TaskLike) -> None:
        """Remove the instance from the node (before cleaning)."""
