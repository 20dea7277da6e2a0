"""What condition operators and actions share (upstream Ironic 39's
rules).

**Arguments.** Each operator or action is a function whose parameters
after the first (the :class:`Run`) are its arguments: those without a
default are required. A rule names them (``args: {value: ..., regex:
...}``); the deprecated list form gives them in order, required ones
first, and items beyond the last parameter are ignored, as upstream.
Upstream's validation writes ``plugin_data: {}`` into the arguments of
the plugin-data actions (rules exported from it carry it): accepted and
ignored here.

**Formatting.** The arguments an operator or action lists as formatted
(``value``, ``msg``, ``url`` ...; every argument inside a ``loop``) go
through :meth:`str.format` with ``node`` (the node: ``{node.driver}``),
``inventory`` and ``plugin_data`` (dictionaries:
``{inventory[bmc_address]}``) and, in a loop, ``item``. Strings nested
in lists and dictionaries (keys too) are formatted; the result is always
a string. A field that cannot be resolved leaves the string as it was
(a warning is logged), except for ``is-empty``, where a missing key
gives ``None``. Inside a loop a string argument is formatted twice, so
that a loop item may itself hold ``{inventory[...]}`` (strings inside a
list argument once, as upstream).

**Masking.** The inventory and plugin data seen through formatting are
read-only views in which every dictionary key named ``password``,
``auth_token`` or ``bmc_password``, at any depth, reads ``***``; the
data is not copied (upstream's "shallow" masking).
"""

from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
import dataclasses
import inspect
from typing import Any

from oslo_log import log as logging

from ironic_lite import exception

LOG = logging.getLogger(__name__)

SENSITIVE_FIELDS = frozenset({'password', 'auth_token', 'bmc_password'})
MASK = '***'
#: Upstream's validation adds this argument to the plugin-data actions.
PLUGIN_DATA_ARG = 'plugin_data'
_FORMAT_ERRORS = (AttributeError, KeyError, ValueError, IndexError, TypeError)
_warned_list_args = False


class InspectionRuleExecutionFailure(exception.HardwareInspectionFailure):
    msg_fmt = 'Inspection rule execution failed. Reason: %(reason)s'


class RuleActionExecutionFailure(InspectionRuleExecutionFailure):
    msg_fmt = 'Inspection rule action execution failed. Reason: %(reason)s'


class RuleConditionCheckFailure(InspectionRuleExecutionFailure):
    msg_fmt = 'Inspection rule condition check failed. Reason: %(reason)s'


class InspectionRuleFailure(exception.IronicLiteException):
    """Any other error of a rule, naming it and the node."""

    msg_fmt = 'Failed to apply rule %(rule)s to node %(node)s: %(error)s'


def masked(value: Any, enabled: bool) -> Any:
    """``value`` as the rules see it: containers as masked views."""
    if isinstance(value, dict):
        return MaskedMapping(value, enabled)
    if isinstance(value, list):
        return MaskedSequence(value, enabled)
    return value


class MaskedMapping(Mapping[Any, Any]):
    """A read-only view of a dict that hides secrets when enabled."""

    def __init__(self, data: dict[Any, Any], enabled: bool) -> None:
        self._data = data
        self._enabled = enabled

    def __getitem__(self, key: Any) -> Any:
        value = self._data[key]  # a missing key is missing, masked or not
        if self._enabled and key in SENSITIVE_FIELDS:
            return MASK
        return masked(value, self._enabled)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return '{%s}' % ', '.join(
            f'{key!r}: {self[key]!r}' for key in self._data
        )


class MaskedSequence(Sequence[Any]):
    """A read-only view of a list whose items are masked views."""

    def __init__(self, data: list[Any], enabled: bool) -> None:
        self._data = data
        self._enabled = enabled

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return MaskedSequence(self._data[index], self._enabled)
        return masked(self._data[index], self._enabled)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return '[%s]' % ', '.join(repr(item) for item in self)


@dataclasses.dataclass
class Run:
    """One rule applied to one node: the task (lock held), the data as
    the rule sees it, and the plugin data itself (actions change it)."""

    task: Any
    inventory: Mapping[str, Any]
    plugin_data: dict[str, Any]
    masked_plugin_data: Mapping[str, Any]

    def fields(self, loop: tuple[Any, ...]) -> dict[str, Any]:
        """The names formatting resolves (``item`` only in a loop)."""
        names = {
            'node': self.task.node,
            'inventory': self.inventory,
            'plugin_data': self.masked_plugin_data,
        }
        if loop:
            names['item'] = loop[0]
        return names


def parse_op(op: str) -> tuple[str, bool]:
    """``'!eq'`` -> ``('eq', True)``; spaces around are ignored.

    :raises ValueError: more than one ``!``.
    """
    op = op.strip()
    if op.count('!') > 1:
        raise ValueError(
            'Multiple exclamation marks are not allowed. To apply the '
            'invert of an operation, simply add an exclamation mark (with '
            'an optional space) before the operator, e.g. eq - !eq.'
        )
    inverted = op.startswith('!')
    return op.lstrip('!').strip(), inverted


def split_path(path: str) -> list[str]:
    """``'/driver_info/x'`` or ``'driver_info.x'`` -> its parts."""
    if '/' in path:
        return path.strip('/').split('/')
    return path.split('.')


def _format(text: str, fields: dict[str, Any], op: str) -> Any:
    try:
        return text.format(**fields)
    except _FORMAT_ERRORS as exc:
        if isinstance(exc, KeyError) and op == 'is-empty':
            return None
        LOG.warning(
            'Node %(node)s: interpolation failed: %(value)s: %(cls)s, %(err)s',
            {
                'node': fields['node'].uuid,
                'value': text,
                'cls': type(exc).__name__,
                'err': exc,
            },
        )
        return text


def interpolate(
    value: Any, fields: dict[str, Any], op: str, looping: bool
) -> Any:
    """``value`` with its strings formatted (see the module doc)."""
    if looping and isinstance(value, str):
        value = _format(value, fields, op)
    if isinstance(value, str):
        return _format(value, fields, op)
    if isinstance(value, dict):
        return {
            (
                _format(key, fields, op) if isinstance(key, str) else key
            ): interpolate(item, fields, op, looping)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [
            _format(item, fields, op)
            if isinstance(item, str)
            else interpolate(item, fields, op, looping)
            for item in value
        ]
    return value


class Plugin:
    """A condition operator or an action: ``func(run, **arguments)``."""

    def __init__(
        self,
        name: str,
        func: Callable[..., Any],
        formatted: tuple[str, ...] = (),
    ) -> None:
        params = list(inspect.signature(func).parameters.values())[1:]
        self.name = name
        self.func = func
        self.formatted = formatted
        self.required = tuple(
            p.name for p in params if p.default is inspect.Parameter.empty
        )
        self.optional = tuple(
            p.name for p in params if p.default is not inspect.Parameter.empty
        )
        self.takes_plugin_data = name.endswith('plugin-data')

    def named_args(self, args: Any) -> dict[str, Any]:
        """The arguments by name.

        :raises ValueError: a list too short for the required ones, or
            neither a list nor a dict.
        """
        if isinstance(args, dict):
            named = dict(args)
        elif isinstance(args, list):
            _warn_list_args()
            if len(args) < len(self.required):
                raise ValueError(
                    'Not enough arguments provided. Missing: '
                    + ', '.join(self.required[len(args) :])
                )
            named = dict(
                zip(self.required + self.optional, args, strict=False)
            )
        else:
            raise ValueError('args must be either a list or dictionary')
        if self.takes_plugin_data:
            named.pop(PLUGIN_DATA_ARG, None)
        return named

    def check_args(self, args: Any) -> None:
        """:raises ValueError: upstream's message for missing or
        unexpected arguments."""
        named = self.named_args(args)
        missing = [name for name in self.required if name not in named]
        known = self.required + self.optional
        unexpected = [name for name in named if name not in known]
        errors = []
        if missing:
            errors.append(
                'missing required argument(s): ' + ', '.join(missing)
            )
        if unexpected:
            errors.append(
                'unexpected argument(s): ' + ', '.join(map(str, unexpected))
            )
        if errors:
            raise ValueError('; '.join(errors))

    def call(
        self, run: Run, args: Any, op: str, loop: tuple[Any, ...] = ()
    ) -> Any:
        """Format the arguments (``loop``: ``(item,)`` inside a loop) and
        run the function."""
        fields = run.fields(loop)
        named = {
            key: (
                interpolate(value, fields, op, bool(loop))
                if loop or key in self.formatted
                else value
            )
            for key, value in self.named_args(args).items()
        }
        if loop and 'force_strings' in self.optional:
            # Formatting turned numbers into strings: compare strings.
            named['force_strings'] = True
        return self.func(run, **named)


def _warn_list_args() -> None:
    global _warned_list_args
    if not _warned_list_args:
        _warned_list_args = True
        LOG.warning(
            'Deprecated: Specifying inspection rule operation '
            "'args' as a list is deprecated and will be removed in "
            'a future release. Use the dictionary (named-argument) '
            "form instead, e.g. 'args: {values: [...]}' rather than "
            "'args: [...]'."
        )
