"""The condition operators of inspection rules (upstream Ironic 39's).

========== ============================= ===========================
operator   arguments                     true when
========== ============================= ===========================
eq         values, force_strings=False   all values are equal
lt         values, force_strings=False   each value < the next one
gt         values, force_strings=False   each value > the next one
is-empty   value                         value is None, "", [] or {}
in-net     address, subnet               the IP address is in the
                                         network (CIDR)
matches    value, regex                  the whole str(value) matches
contains   value, regex                  str(value) contains a match
one-of     value, values=[]              value is one of values
is-none    value                         value is None
is-true    value                         True, a non-zero number,
                                         "yes" or "true" (any case)
is-false   value                         False, 0, None, "no" or
                                         "false" (any case)
========== ============================= ===========================

``eq``, ``lt`` and ``gt`` want a list (an error otherwise) and hold for
fewer than two values. Formatted arguments (see :mod:`.base`): ``values``
of the comparisons, ``value``, ``address`` and ``subnet``; remember that
a formatted field is a string (``"{inventory[cpu][count]}"`` is ``"4"``,
not ``4``). ``!op`` inverts an operator (``!eq``: not all equal).

Upstream 39 also has ``le``, ``ge`` and ``ne`` classes but no rule can
name them (its schema and registry list only the operators above):
neither can one here; ``!gt``, ``!lt`` and ``!eq`` do their work for two
values.

**Loops.** A condition with a ``loop`` (a list, or a dict: one item) is
checked once per item, ``{item}`` naming it, every argument formatted
and values compared as strings (``force_strings``); ``multiple`` says
what the condition is then: ``any`` (the default: one item holds),
``all``, ``first`` and ``last`` (the last item's result). ``first``
is upstream's: true as soon as one item holds (checking stops there),
so it answers as ``any`` does. An inverted operator is inverted for each
item.
"""

from collections.abc import Callable
import operator
import re
from typing import Any

import netaddr
from oslo_log import log as logging

from ironic_lite.inspection_rules import base

LOG = logging.getLogger(__name__)

Run = base.Run


def _comparison(compare: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    def check(run: Run, values: Any, force_strings: bool = False) -> bool:
        if not isinstance(values, list):
            msg = (
                f"Failed to check condition: '{compare.__name__}' on "
                f"values: {values}: Expected list for 'values', got: "
                f'{type(values).__name__}'
            )
            LOG.error(
                'Node %(node)s: %(msg)s',
                {'node': run.task.node.uuid, 'msg': msg},
            )
            raise base.RuleConditionCheckFailure(reason=msg)
        if force_strings:
            values = [str(value) for value in values]
        return all(
            compare(first, second)
            for first, second in zip(values, values[1:], strict=False)
        )

    return check


def _is_empty(run: Run, value: Any) -> bool:
    return str(value) in ('', 'None', '[]', '{}')


def _in_net(run: Run, address: Any, subnet: Any) -> bool:
    # netaddr (an oslo.utils dependency), as upstream: its messages.
    try:
        network = netaddr.IPNetwork(subnet)
    except netaddr.AddrFormatError as exc:
        raise base.InspectionRuleExecutionFailure(f'invalid value: {exc}')
    return netaddr.IPAddress(address) in network


def _compiled(regex: Any) -> re.Pattern[str]:
    try:
        return re.compile(regex)
    except re.error as exc:
        raise base.InspectionRuleExecutionFailure(
            f'invalid regular expression: {exc}'
        )


def _matches(run: Run, value: Any, regex: Any) -> bool:
    _compiled(regex)
    if not regex.endswith('$'):
        regex += '$'
    return re.match(regex, str(value)) is not None


def _contains(run: Run, value: Any, regex: Any) -> bool:
    return _compiled(regex).search(str(value)) is not None


def _one_of(run: Run, value: Any, values: Any = ()) -> bool:
    return value in values


def _is_none(run: Run, value: Any) -> bool:
    return value is None


def _is_true(run: Run, value: Any) -> bool:
    if isinstance(value, (bool, int, float)):
        return bool(value)
    if isinstance(value, str):
        return value.lower() in ('yes', 'true')
    return False


def _is_false(run: Run, value: Any) -> bool:
    if isinstance(value, (bool, int, float)):
        return not value
    if isinstance(value, str):
        return value.lower() in ('no', 'false')
    return value is None


_VALUE = ('value',)
#: Every operator a rule may name, in upstream's order (the schema's).
OPERATORS: dict[str, base.Plugin] = {
    plugin.name: plugin
    for plugin in (
        base.Plugin('eq', _comparison(operator.eq), ('values',)),
        base.Plugin('lt', _comparison(operator.lt), ('values',)),
        base.Plugin('gt', _comparison(operator.gt), ('values',)),
        base.Plugin('is-empty', _is_empty, _VALUE),
        base.Plugin('in-net', _in_net, ('address', 'subnet')),
        base.Plugin('matches', _matches, _VALUE),
        base.Plugin('contains', _contains, _VALUE),
        base.Plugin('one-of', _one_of, _VALUE),
        base.Plugin('is-none', _is_none, _VALUE),
        base.Plugin('is-true', _is_true, _VALUE),
        base.Plugin('is-false', _is_false, _VALUE),
    )
}


def get_operator(op: str) -> base.Plugin:
    """The operator ``op`` names (``!`` and all).

    :raises ValueError: an unknown operator (upstream's message).
    """
    name, _inverted = base.parse_op(op)
    try:
        return OPERATORS[name]
    except KeyError:
        raise ValueError(
            f"Unsupported operator: '{name}'. Supported "
            f'operators are: {", ".join(OPERATORS)}.'
        )


def check_condition(run: Run, condition: dict[str, Any]) -> bool:
    """Whether ``condition`` holds (its loop and inversion included).

    :raises ValueError: an unknown operator.
    :raises InspectionRuleExecutionFailure: (or a subclass) an argument
        the operator cannot use; other errors (comparing a number with
        a string, say) come as they are.
    """
    plugin = get_operator(condition['op'])
    loop = condition.get('loop')
    if not loop or not isinstance(loop, (list, dict)):
        return _check_once(run, plugin, condition)
    multiple = condition.get('multiple', 'any')
    results = []
    for item in [loop] if isinstance(loop, dict) else loop:
        result = _check_once(run, plugin, condition, (item,))
        if multiple == 'first' and result:
            return True
        results.append(result)
    if multiple == 'all':
        return all(results)
    if multiple == 'last':
        return results[-1]
    return any(results)


def _check_once(
    run: Run,
    plugin: base.Plugin,
    condition: dict[str, Any],
    loop: tuple[Any, ...] = (),
) -> bool:
    name, inverted = base.parse_op(condition['op'])
    result = bool(plugin.call(run, condition.get('args', {}), name, loop))
    return not result if inverted else result
