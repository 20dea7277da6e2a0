"""Driver interfaces and the ``@clean_step`` decorator.

A node is driven through thirteen interfaces
(:data:`ironic_lite.common.interfaces.INTERFACE_TYPES`), each a class
loaded by stevedore: power, management and deploy here, the others in
:mod:`ironic_lite.drivers.standard`. Any interface method decorated
with :func:`clean_step` is a clean step;
:meth:`BaseInterface.get_clean_steps` lists them and
:meth:`BaseInterface.execute_clean_step` runs one.

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
5. ``abort`` of a node in ``clean wait`` whose step is abortable
   (``node.clean_step['abortable']``) calls
   :meth:`BaseInterface.abort_clean_step` so the driver can stop the
   work and forget its bookkeeping; a step that is not abortable
   finishes first.

Long synchronous steps, the contract with the conductor:

- A step that runs for a while calls ``task.checkpoint()`` between
  units of work. It raises :class:`~ironic_lite.exception.NodeNotLocked`
  when this conductor no longer holds the node's lock (it was thought
  dead and another conductor took the node over): the step must stop
  touching the hardware at once and let the exception propagate. For
  an ``abortable`` step it raises
  :class:`~ironic_lite.exception.CleanStepAborted` once an operator
  asked to abort the cleaning. A step that never calls it cannot be
  fenced or aborted before it returns.
- ``idempotent=True`` declares that running the step again after an
  interruption (its conductor died or was cut off half way) is safe:
  the conductor that takes the node over runs it again, at most
  ``[conductor]clean_step_max_attempts`` times in all. A step that is
  not idempotent (the default: flashing firmware, building RAID) is
  never run a second time; the node fails cleaning instead.

Everything a step keeps between calls lives in the node, never in the
interface object, so any conductor can take over the node. Whatever a
step records in ``driver_internal_info`` must stay small and bounded:
the whole dictionary is one database column.
"""

import abc
from collections.abc import Callable
import copy
import dataclasses
from typing import Any
from typing import Protocol
from typing import TypeVar
from typing import cast

import jsonschema
from oslo_config import cfg
from oslo_log import log as logging

from ironic_lite import exception
from ironic_lite.common import states
from lite_common.context import RequestContext

LOG = logging.getLogger(__name__)

F = TypeVar('F', bound=Callable[..., Any])

#: JSON schema keywords an ``argsinfo`` entry may use to constrain the
#: value of its argument (besides ``description`` and ``required``).
ARG_SCHEMA_KEYS = frozenset(
    {'type', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'enum'}
)
_ARGSINFO_KEYS = frozenset({'description', 'required'}) | ARG_SCHEMA_KEYS


def _is_integer(_checker: Any, value: Any) -> bool:
    # JSON's 2.0 is a float here, and True is not an integer.
    return isinstance(value, int) and not isinstance(value, bool)


#: Draft 2020-12, except that only Python ints are integers.
_ArgValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        'integer', _is_integer
    ),
)


class NodeLike(Protocol):
    """What interfaces read and change on a node."""

    id: int
    uuid: str
    driver: str
    power_state: str | None
    provision_state: str
    properties: dict[str, Any]
    driver_info: dict[str, Any]
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

    context: RequestContext

    def checkpoint(self) -> None:
        """Between units of work of a long step: raise when the
        conductor lost the node (or the step is to be aborted)."""


@dataclasses.dataclass(frozen=True)
class StepInfo:
    """The ``@clean_step`` arguments, kept on the decorated function."""

    priority: int
    abortable: bool
    argsinfo: dict[str, dict[str, Any]] | None
    idempotent: bool = False
    #: Service steps: whether the step needs the node to boot a ramdisk
    #: (upstream's flag; a request with ``disable_ramdisk`` refuses it).
    requires_ramdisk: bool = True


def _validate_argsinfo(argsinfo: Any) -> None:
    if argsinfo is None:
        return
    if not isinstance(argsinfo, dict):
        raise exception.InvalidParameterValue(
            err=f'argsinfo must be a dict, not {argsinfo!r}'
        )
    for name, info in argsinfo.items():
        where = f'argsinfo of argument {name!r}'
        if not isinstance(name, str) or not isinstance(info, dict):
            raise exception.InvalidParameterValue(
                err=f'{where} must map a name to a dict'
            )
        unknown = set(info) - _ARGSINFO_KEYS
        if unknown:
            raise exception.InvalidParameterValue(
                err=f'{where} has unknown keys {sorted(unknown)}'
            )
        if not isinstance(info.get('description'), str):
            raise exception.InvalidParameterValue(
                err=f'{where} needs a "description" string'
            )
        if not isinstance(info.get('required', False), bool):
            raise exception.InvalidParameterValue(
                err=f'{where}: "required" must be a boolean'
            )
        try:
            _ArgValidator.check_schema(arg_schema(info))
        except jsonschema.SchemaError as exc:
            raise exception.InvalidParameterValue(
                err=f'{where}: invalid constraint: {exc.message}'
            )


def arg_schema(info: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema an argument's value must match (its
    ``argsinfo`` entry without description and required)."""
    return {
        key: value for key, value in info.items() if key in ARG_SCHEMA_KEYS
    }


def clean_step(
    priority: int,
    abortable: bool = False,
    argsinfo: dict[str, dict[str, Any]] | None = None,
    idempotent: bool = False,
) -> Callable[[F], F]:
    """Mark an interface method ``method(self, task, **args)`` as a
    clean step.

    :param priority: automated cleaning runs steps of priority > 0,
        highest first; 0 means manual cleaning only.
    :param abortable: whether ``abort`` may interrupt the step while
        it runs (asynchronously, or at a ``task.checkpoint()``).
    :param argsinfo: the arguments the step accepts, as
        ``{name: {'description': str, 'required': bool, ...}}``; an
        entry may constrain the value with the JSON schema keywords of
        :data:`ARG_SCHEMA_KEYS` (``type``, ``minimum``, ``maximum``,
        ``minLength``, ``maxLength``, ``pattern``, ``enum``). The API
        refuses a request whose arguments do not match (400).
    :param idempotent: whether running the step again after an
        interruption is safe (see the module docstring).
    :raises InvalidParameterValue: on invalid decorator arguments.
    """
    if (
        isinstance(priority, bool)
        or not isinstance(priority, int)
        or priority < 0
    ):
        raise exception.InvalidParameterValue(
            err=f'clean step priority must be an integer >= 0, '
            f'not {priority!r}'
        )
    for name, flag in (('abortable', abortable), ('idempotent', idempotent)):
        if not isinstance(flag, bool):
            raise exception.InvalidParameterValue(
                err=f'{name} must be a boolean, not {flag!r}'
            )
    _validate_argsinfo(argsinfo)

    def decorate(func: F) -> F:
        func._clean_step = StepInfo(  # type: ignore[attr-defined]
            priority, abortable, argsinfo, idempotent
        )
        return func

    return decorate


def deploy_step(
    priority: int,
    argsinfo: dict[str, dict[str, Any]] | None = None,
    abortable: bool = False,
) -> Callable[[F], F]:
    """Mark an interface method ``method(self, task, **args)`` as a
    deploy step (API 1.69 and deploy templates).

    The step returns None when done or ``states.DEPLOYWAIT`` when it
    goes on asynchronously: the node waits in ``wait call-back`` and
    :meth:`BaseInterface.poll_deploy_step` says when it finished.

    :param priority: a deployment runs the steps of priority > 0,
        highest first; 0 means only when a template or the request asks
        for it (with a priority of its own).
    :param argsinfo: as :func:`clean_step`.
    :param abortable: whether ``abort`` (API 1.110) stops the step in
        ``wait call-back`` at once through
        :meth:`BaseInterface.abort_deploy_step`; otherwise the abort
        waits for the step to finish (upstream's only behaviour: its
        deploy steps have no such flag).
    :raises InvalidParameterValue: on invalid decorator arguments.
    """
    if (
        isinstance(priority, bool)
        or not isinstance(priority, int)
        or priority < 0
    ):
        raise exception.InvalidParameterValue(
            err=f'deploy step priority must be an integer >= 0, '
            f'not {priority!r}'
        )
    if not isinstance(abortable, bool):
        raise exception.InvalidParameterValue(
            err=f'abortable must be a boolean, not {abortable!r}'
        )
    _validate_argsinfo(argsinfo)

    def decorate(func: F) -> F:
        func._deploy_step = StepInfo(  # type: ignore[attr-defined]
            priority, abortable, argsinfo
        )
        return func

    return decorate


def service_step(
    priority: int = 0,
    abortable: bool = False,
    argsinfo: dict[str, dict[str, Any]] | None = None,
    requires_ramdisk: bool = True,
) -> Callable[[F], F]:
    """Mark an interface method ``method(self, task, **args)`` as a
    service step (API 1.87): a step an operator asks an ``active``
    node to run (``PUT .../states/provision {"target": "service"}``).

    It returns None when done or ``states.SERVICEWAIT`` when it goes
    on asynchronously (then :meth:`BaseInterface.poll_service_step`
    says when it finished, as for clean steps). Servicing never reruns
    an interrupted step: the node fails instead.

    :param priority: upstream's; service steps only run when asked.
    :param abortable: whether ``abort`` stops the step in ``service
        wait`` at once (otherwise the abort waits for it).
    :param argsinfo: as :func:`clean_step`.
    :param requires_ramdisk: upstream's flag: a request with
        ``disable_ramdisk`` refuses such a step.
    :raises InvalidParameterValue: on invalid decorator arguments.
    """
    if (
        isinstance(priority, bool)
        or not isinstance(priority, int)
        or priority < 0
    ):
        raise exception.InvalidParameterValue(
            err=f'service step priority must be an integer >= 0, '
            f'not {priority!r}'
        )
    for name, flag in (
        ('abortable', abortable),
        ('requires_ramdisk', requires_ramdisk),
    ):
        if not isinstance(flag, bool):
            raise exception.InvalidParameterValue(
                err=f'{name} must be a boolean, not {flag!r}'
            )
    _validate_argsinfo(argsinfo)

    def decorate(func: F) -> F:
        func._service_step = StepInfo(  # type: ignore[attr-defined]
            priority, abortable, argsinfo, requires_ramdisk=requires_ramdisk
        )
        return func

    return decorate


def validate_step_args(
    step: dict[str, Any],
    argsinfo: dict[str, dict[str, Any]] | None,
    kind: str = 'Clean',
) -> None:
    """Check ``step['args']`` against the step's ``argsinfo``.

    :raises InvalidParameterValue: unknown or missing required args, or
        a value that does not match its constraints (type, range ...).
    """
    name = f'{step.get("interface")}.{step.get("step")}'
    args = step.get('args') or {}
    if not isinstance(args, dict):
        raise exception.InvalidParameterValue(
            err=f'{kind} step {name}: args must be an object'
        )
    argsinfo = argsinfo or {}
    unknown = sorted(set(args) - set(argsinfo))
    if unknown:
        raise exception.InvalidParameterValue(
            err=f'{kind} step {name} does not accept the argument(s) '
            f'{", ".join(unknown)}; it accepts: '
            f'{", ".join(sorted(argsinfo)) or "none"}'
        )
    missing = sorted(
        arg
        for arg, info in argsinfo.items()
        if info.get('required') and arg not in args
    )
    if missing:
        raise exception.InvalidParameterValue(
            err=f'{kind} step {name} requires the argument(s) '
            f'{", ".join(missing)}'
        )
    for arg, value in sorted(args.items()):
        error = jsonschema.exceptions.best_match(
            _ArgValidator(arg_schema(argsinfo[arg])).iter_errors(value)
        )
        if error is not None:
            raise exception.InvalidParameterValue(
                err=f'{kind} step {name}: invalid value of argument '
                f'{arg}: {error.message}'
            )


class BaseInterface:
    """What every interface has: a type, clean steps, config access."""

    interface_type: str = 'base'

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf

    def validate(self, task: TaskLike) -> None:
        """Check the node has what this interface needs; raise
        InvalidParameterValue if not."""

    def get_properties(self) -> dict[str, str]:
        """The ``driver_info`` keys this interface reads: name ->
        description (saying whether it is required), for
        ``GET /v1/drivers/{name}/properties``."""
        return {}

    def clean_step_definitions(self) -> list[dict[str, Any]]:
        """Every clean step of this interface, whatever the node:
        dicts with step, priority, interface, abortable, idempotent,
        argsinfo."""
        steps = []
        for name in sorted(dir(type(self))):
            info = getattr(getattr(type(self), name), '_clean_step', None)
            if isinstance(info, StepInfo):
                steps.append(
                    {
                        'step': name,
                        'priority': info.priority,
                        'interface': self.interface_type,
                        'abortable': info.abortable,
                        'idempotent': info.idempotent,
                        'argsinfo': copy.deepcopy(info.argsinfo),
                    }
                )
        return steps

    def get_clean_steps(self, task: TaskLike) -> list[dict[str, Any]]:
        """The clean steps available for ``task.node``. Interfaces
        whose steps depend on the node override this."""
        return self.clean_step_definitions()

    def execute_clean_step(
        self, task: TaskLike, step: dict[str, Any]
    ) -> str | None:
        """Run ``step`` (``{'interface', 'step', 'args'}``).

        :returns: None when done, ``states.CLEANWAIT`` when the step
            goes on asynchronously (see the module docstring).
        :raises CleanStepNotFound: no such step on this interface.
        :raises InvalidParameterValue: invalid args.
        """
        name = step.get('step')
        method = getattr(self, str(name), None) if name else None
        info = getattr(method, '_clean_step', None)
        if (
            step.get('interface') != self.interface_type
            or method is None
            or not isinstance(info, StepInfo)
        ):
            raise exception.CleanStepNotFound(
                interface_type=self.interface_type, step=name
            )
        validate_step_args(step, info.argsinfo)
        result = method(task, **(step.get('args') or {}))
        if result not in (None, states.CLEANWAIT):
            raise exception.NodeCleaningFailure(
                node=task.node.uuid,
                reason=f'clean step {self.interface_type}.{name} '
                f'returned {result!r}',
            )
        return cast('str | None', result)

    def get_deploy_steps(self, task: TaskLike) -> list[dict[str, Any]]:
        """The deploy steps of this interface: dicts with step,
        priority, interface, argsinfo."""
        steps = []
        for name in sorted(dir(type(self))):
            info = getattr(getattr(type(self), name), '_deploy_step', None)
            if isinstance(info, StepInfo):
                steps.append(
                    {
                        'step': name,
                        'priority': info.priority,
                        'interface': self.interface_type,
                        'argsinfo': copy.deepcopy(info.argsinfo),
                    }
                )
        return steps

    def execute_deploy_step(
        self, task: TaskLike, step: dict[str, Any]
    ) -> str | None:
        """Run ``step`` (``{'interface', 'step', 'args'}``); returns
        what the step returns (``wait call-back``: it goes on
        asynchronously).

        :raises InvalidParameterValue: no such step, or invalid args.
        """
        name = step.get('step')
        method = getattr(self, str(name), None) if name else None
        info = getattr(type(self), str(name), None) if name else None
        info = getattr(info, '_deploy_step', None)
        if method is None or not isinstance(info, StepInfo):
            raise exception.InvalidParameterValue(
                err=f'deploy step {name} on interface '
                f'{self.interface_type} does not exist'
            )
        validate_step_args(step, info.argsinfo, 'Deploy')
        result: str | None = method(task, **(step.get('args') or {}))
        return result

    def deploy_step_abortable(self, name: str) -> bool:
        """Whether this interface's deploy step ``name`` is abortable
        (:func:`deploy_step`); False for an unknown step."""
        info = getattr(getattr(type(self), name, None), '_deploy_step', None)
        return isinstance(info, StepInfo) and info.abortable

    def poll_deploy_step(self, task: TaskLike) -> bool:
        """Whether the asynchronous step in ``task.node.deploy_step`` has
        finished; raise to fail it. Default: never by polling (an
        abort, an undeploy or the timeout ends it)."""
        return False

    def abort_deploy_step(self, task: TaskLike) -> None:
        """Stop the asynchronous step in ``task.node.deploy_step``."""

    def service_step_definitions(self) -> list[dict[str, Any]]:
        """Every service step of this interface: dicts with step,
        priority, interface, abortable, requires_ramdisk, argsinfo."""
        steps = []
        for name in sorted(dir(type(self))):
            info = getattr(getattr(type(self), name), '_service_step', None)
            if isinstance(info, StepInfo):
                steps.append(
                    {
                        'step': name,
                        'priority': info.priority,
                        'interface': self.interface_type,
                        'abortable': info.abortable,
                        'requires_ramdisk': info.requires_ramdisk,
                        'argsinfo': copy.deepcopy(info.argsinfo),
                    }
                )
        return steps

    def execute_service_step(
        self, task: TaskLike, step: dict[str, Any]
    ) -> str | None:
        """Run the service step ``step``; None when done,
        ``states.SERVICEWAIT`` when it goes on asynchronously.

        :raises InvalidParameterValue: no such step, or invalid args.
        :raises NodeServicingFailure: the step returned something else.
        """
        name = step.get('step')
        info = getattr(type(self), str(name), None) if name else None
        info = getattr(info, '_service_step', None)
        if step.get('interface') != self.interface_type or not isinstance(
            info, StepInfo
        ):
            raise exception.InvalidParameterValue(
                err=f'service step {name} on interface '
                f'{self.interface_type} does not exist'
            )
        validate_step_args(step, info.argsinfo, 'Service')
        result = getattr(self, str(name))(task, **(step.get('args') or {}))
        if result not in (None, states.SERVICEWAIT):
            raise exception.NodeServicingFailure(
                node=task.node.uuid,
                reason=f'service step {self.interface_type}.{name} '
                f'returned {result!r}',
            )
        return cast(str | None, result)

    def poll_service_step(self, task: TaskLike) -> bool:
        """Whether the asynchronous step in ``task.node.service_step``
        has finished; raise to fail it. Default: never by polling (a
        callback, an abort or the timeout ends it)."""
        return False

    def abort_service_step(self, task: TaskLike) -> None:
        """Stop the asynchronous step in ``task.node.service_step``."""

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
    def set_power_state(
        self, task: TaskLike, power_state: str, timeout: int | None = None
    ) -> None:
        """Switch the node to ``power_state``."""

    @abc.abstractmethod
    def reboot(self, task: TaskLike, timeout: int | None = None) -> None:
        """Power cycle the node; it ends powered on."""

    def get_supported_power_states(self, task: TaskLike) -> list[str]:
        """The targets :meth:`set_power_state` takes besides reboot
        (upstream's names); soft ones (``soft power off``, ``soft
        rebooting``) only where the hardware has them."""
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT]


class ManagementInterface(BaseInterface, abc.ABC):
    interface_type = 'management'

    @abc.abstractmethod
    def get_boot_device(self, task: TaskLike) -> dict[str, Any]:
        """``{'boot_device': str | None, 'persistent': bool | None}``."""

    @abc.abstractmethod
    def set_boot_device(
        self, task: TaskLike, device: str, persistent: bool = False
    ) -> None:
        """Boot the node from ``device`` next time (or every time).

        :raises InvalidParameterValue: a device it does not support.
        """

    def inject_nmi(self, task: TaskLike) -> None:
        """Send the node a non-maskable interrupt (API 1.29).

        :raises UnsupportedDriverExtension: the hardware cannot (the
            default, and upstream's fake management).
        """
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='inject_nmi'
        )

    @abc.abstractmethod
    def get_supported_boot_devices(self, task: TaskLike) -> list[str]:
        """The boot devices ``set_boot_device`` takes (upstream's names:
        pxe, disk, cdrom, bios, safe, wanboot, iscsi, floppy,
        uefi-http)."""

    # Indicators (LEDs) of the hardware components, as upstream: an
    # interface without them refuses (400).

    def get_supported_indicators(
        self, task: TaskLike
    ) -> dict[str, dict[str, Any]]:
        """``{component: {indicator: {'readonly': bool, 'states':
        [...]}}}``."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='get_supported_indicators'
        )

    def get_indicator_state(
        self, task: TaskLike, component: str, indicator: str
    ) -> str:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='get_indicator_state'
        )

    def set_indicator_state(
        self, task: TaskLike, component: str, indicator: str, state: str
    ) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='set_indicator_state'
        )

    # Boot mode and secure boot (API 1.76); none by default, as
    # upstream's (its fake management has neither).

    def get_boot_mode(self, task: TaskLike) -> str | None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='get_boot_mode'
        )

    def set_boot_mode(self, task: TaskLike, mode: str) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='set_boot_mode'
        )

    def get_secure_boot_state(self, task: TaskLike) -> bool | None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='get_secure_boot_state'
        )

    def set_secure_boot_state(self, task: TaskLike, state: bool) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='set_secure_boot_state'
        )

    # Virtual media (API 1.89, 1.93); none by default, as upstream's
    # (its fake management has none).

    def get_virtual_media(self, task: TaskLike) -> Any:
        """The virtual media devices and what they hold (upstream's
        redfish answer: a list of ``{'media_types', 'inserted',
        'image'}``)."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='get_virtual_media'
        )

    def attach_virtual_media(
        self, task: TaskLike, device_type: str, image_url: str
    ) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='attach_virtual_media'
        )

    def detach_virtual_media(
        self, task: TaskLike, device_types: list[str] | None = None
    ) -> None:
        """Detach ``device_types`` (None: every device)."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='detach_virtual_media'
        )


class DeployInterface(BaseInterface, abc.ABC):
    interface_type = 'deploy'
    #: The core deploy step, which every deploy interface has (upstream's
    #: deploy.deploy, priority 100): :meth:`deploy`.
    CORE_STEP_PRIORITY = 100

    def get_deploy_steps(self, task: TaskLike) -> list[dict[str, Any]]:
        steps = super().get_deploy_steps(task)
        if not any(step['step'] == 'deploy' for step in steps):
            steps.append(
                {
                    'step': 'deploy',
                    'priority': self.CORE_STEP_PRIORITY,
                    'interface': self.interface_type,
                    'argsinfo': None,
                }
            )
        return steps

    def execute_deploy_step(
        self, task: TaskLike, step: dict[str, Any]
    ) -> str | None:
        if step.get('step') == 'deploy':
            validate_step_args(step, None, 'Deploy')
            return self.deploy(task)
        return super().execute_deploy_step(task, step)

    @abc.abstractmethod
    def deploy(self, task: TaskLike) -> str | None:
        """Put the instance on the node: None when done,
        ``states.DEPLOYWAIT`` when it goes on asynchronously."""

    @abc.abstractmethod
    def tear_down(self, task: TaskLike) -> None:
        """Remove the instance from the node (before cleaning)."""

    def validate_instance(self, task: TaskLike) -> None:
        """What a deployment needs of ``instance_info`` (the image ...),
        checked before it starts and by the node's validation; not by
        cleaning, which deploys nothing. Default: nothing is needed.

        :raises InvalidParameterValue: (or MissingParameterValue).
        """

    def prepare_cleaning(self, task: TaskLike) -> str | None:
        """Before the clean steps are listed: boot what runs them.
        ``states.CLEANWAIT`` means the steps come from a ramdisk agent
        that will heartbeat (the node waits for it in ``clean wait``);
        None (the default) means the steps are known now."""
        return None

    def tear_down_cleaning(self, task: TaskLike) -> None:
        """After the last clean step of a cleaning that
        :meth:`prepare_cleaning` prepared (default: nothing)."""

    def take_over(self, task: TaskLike) -> None:
        """Adopt the instance the node already runs (API 1.17: nothing
        is written to the node); the default has nothing to check."""

    def heartbeat(
        self,
        task: TaskLike,
        callback_url: str,
        agent_version: str,
        agent_verify_ca: str | None = None,
        agent_status: str | None = None,
        agent_status_message: str | None = None,
    ) -> None:
        """A heartbeat of a ramdisk agent on the node (its token already
        checked, the task shared). An interface that drives no agent
        ignores it, as upstream's."""
        LOG.warning(
            'Got a heartbeat from node %(node)s, but its deploy '
            'interface %(iface)s drives no agent; ignored',
            {'node': task.node.uuid, 'iface': type(self).__name__},
        )
