"""Remote consoles (``POST /servers/{id}/remote-consoles``, 2.6+) and
console auth tokens, without console proxies.

Upstream's compute service hands out a console URL (and a token that
``GET /os-console-auth-tokens/{token}`` resolves) only for the console
protocols its configuration enables (``[vnc]``, ``[spice]``,
``[serial_console]``, ``[mks]``) and behind a matching proxy service.
nova_lite runs no console proxy and no driver here exposes a console,
so every protocol is disabled: a request for a server that can have a
console (it has a host, no delete or migration in progress) gets
upstream's answer for a disabled console type, and no token is ever
issued.
"""

from typing import Any

from nova_lite import exception
from nova_lite.common import states

#: Task states upstream refuses a console in (reject_instance_state).
_REFUSED_TASKS = (states.DELETING, states.MIGRATING)


def remote_console(
    inst: dict[str, Any], protocol: str, console_type: str
) -> dict[str, Any]:
    """The console URL of ``inst``; here always the refusal of a console
    type no compute enables, after upstream's checks of the server."""
    if not inst['host']:
        raise exception.InstanceNotReady(instance_id=inst['uuid'])
    if inst['task_state'] in _REFUSED_TASKS:
        raise exception.InstanceStateConflict(
            action=f'get_{protocol}_console',
            instance_uuid=inst['uuid'],
            vm_state=inst['vm_state'],
            task_state=inst['task_state'],
        )
    raise exception.ConsoleTypeUnavailable(console_type=console_type)


def connection_info(token: str) -> dict[str, Any] | None:
    """What a console token connects to: no token is ever issued here."""
    return None
