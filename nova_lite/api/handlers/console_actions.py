"""POST /servers/{server_id}/action: the console log and the console
actions of before 2.6.

``os-getConsoleOutput`` (every version; policy
``os_compute_api:os-console-output``, members): ``{"output": ...}``, the
guest's console log from its compute agent (an RPC call; see
:mod:`nova_lite.common.console_output`), its last ``length`` lines when
given; 409 for a server on no host or whose agent does not answer, 404
when the guest is not on its host, 501 for a driver that keeps no log
(bare metal).

``os-getVNCConsole`` (``novnc``, ``xvpvnc``), ``os-getSPICEConsole``
(``spice-html5``) and ``os-getSerialConsole`` (``serial``) are the
legacy form of ``POST /servers/{id}/remote-consoles``, served from 2.1
to 2.5 (a 404 from 2.6, as upstream) with the same answers (see
:mod:`nova_lite.compute_api.consoles`: no console type is enabled here, so
a 400 ``Unavailable console type <type>.`` after the 409s of the
server), in the legacy response shape ``{"console": {"type", "url"}}``.
``os-getRDPConsole`` is upstream's removed action: a 400 whatever the
body.
"""

from collections.abc import Callable
from typing import Any

import webob
import webob.exc

from nova_lite import exception
from nova_lite.api import microversion as mv
from nova_lite.api import util
from nova_lite.api.schemas import remote_consoles as schema
from nova_lite.common import console_output
from nova_lite.compute_api import consoles
from nova_lite.objects import instance as instance_obj
from nova_lite.policies import consoles_shares as policies

Row = dict[str, Any]
#: The first version without them (the remote-consoles resource's).
GONE_SINCE = mv.REMOTE_CONSOLES


def _served(req: webob.Request) -> None:
    if util.version(req).at_least(GONE_SINCE):
        raise webob.exc.HTTPNotFound(
            explanation='The resource could not be found.'
        )


def _console(
    action: str, protocol: str, types: list[str]
) -> Callable[..., webob.Response]:
    def handler(req: webob.Request, inst: Row, body: Row) -> webob.Response:
        _served(req)
        util.validate(schema.legacy_action(action, types), body)
        util.authorize(
            req, policies.REMOTE_CONSOLES, {'project_id': inst['project_id']}
        )
        console_type = body[action]['type']
        console = consoles.remote_console(inst, protocol, console_type)
        return util.json_response(
            {'console': {'type': console_type, 'url': console['url']}}
        )

    return handler


def _rdp(req: webob.Request, inst: Row, body: Row) -> webob.Response:
    _served(req)
    # Upstream's answer since its Hyper-V driver (the only one with an
    # RDP console) left.
    raise webob.exc.HTTPBadRequest()


def _console_output(
    req: webob.Request, inst: Row, body: Row
) -> webob.Response:
    util.validate(schema.CONSOLE_OUTPUT, body)
    util.authorize(
        req, policies.CONSOLE_OUTPUT, {'project_id': inst['project_id']}
    )
    length = body['os-getConsoleOutput'].get('length')
    if not inst['host']:
        raise exception.InstanceNotReady(instance_id=inst['uuid'])
    ctx = util.context(req)
    with util.agent_call(inst['host']):
        output = util.deps(req).compute.get_console_output(
            ctx,
            instance_obj.Instance._from_db(ctx, inst),
            None if length is None else int(length),
            inst['host'],
        )
    return util.json_response({'output': console_output.cleaned(output)})


ACTIONS = {
    'os-getConsoleOutput': _console_output,
    'os-getVNCConsole': _console(
        'os-getVNCConsole', 'vnc', ['novnc', 'xvpvnc']
    ),
    'os-getSPICEConsole': _console(
        'os-getSPICEConsole', 'spice', ['spice-html5']
    ),
    'os-getSerialConsole': _console(
        'os-getSerialConsole', 'serial', ['serial']
    ),
    'os-getRDPConsole': _rdp,
}
