"""The rules of the protected and retired flags of a node (upstream's).

- ``protected`` (API 1.48) may only be set on a node in ``active``
  (409 otherwise); a protected node refuses to be undeployed or deleted
  (:class:`~ironic_lite.exception.NodeProtected`, 403).
- ``retired`` (API 1.61) may not be set on a node in ``available``
  (409); a retired node refuses ``provide`` (400), and its cleaning
  after an undeploy ends in ``manageable`` instead of ``available``.
- Each reason may only be set with its flag, and is cleared with it.
"""

from typing import Any

from ironic_lite import exception
from ironic_lite.common import states

#: Provision states a node may be made protected in (upstream has
#: rescue too, which ironic_lite does not serve).
PROTECTABLE_STATES = (states.ACTIVE,)


def _check_flag(node: Any, values: dict[str, Any], flag: str) -> None:
    """Clear the reason with the flag; refuse a reason without it."""
    reason = f'{flag}_reason'
    if flag in values and not values[flag]:
        values[reason] = None
    now = values.get(flag, getattr(node, flag))
    if values.get(reason) and not now:
        raise exception.InvalidParameterValue(
            err=f'The {reason} field can only be set when {flag} is True'
        )


def check_update(node: Any, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` as they may be written to ``node`` (a task's node),
    the reasons cleared with their flags.

    :raises InvalidState: protected outside ``active``, retired in
        ``available``.
    :raises InvalidParameterValue: a reason without its flag.
    """
    values = dict(values)
    state = node.provision_state
    if values.get('protected') and state not in PROTECTABLE_STATES:
        raise exception.InvalidState(
            reason=f'Node {node.uuid} can only be made protected in '
            f"provision state 'active', the current state is '{state}'"
        )
    if values.get('retired') and state == states.AVAILABLE:
        raise exception.InvalidState(
            reason=f"Node {node.uuid} can not have 'retired' set in "
            f"provision state 'available', the current state is '{state}'"
        )
    _check_flag(node, values, 'protected')
    _check_flag(node, values, 'retired')
    return values


def check_action(node: Any, event: str, action: str) -> None:
    """Refuse a provision ``event`` the flags of ``node`` forbid.

    :raises NodeProtected: undeploying or rebuilding a protected node.
    :raises NodeIsRetired: providing a retired node.
    """
    if event in ('delete', 'rebuild') and node.protected:
        raise exception.NodeProtected(node=node.uuid)
    if event == 'provide' and node.retired:
        raise exception.NodeIsRetired(op='providing', node=node.uuid)


def check_destroy(node: Any) -> None:
    """:raises NodeProtected: deleting a protected node."""
    if node.protected:
        raise exception.NodeProtected(node=node.uuid)
