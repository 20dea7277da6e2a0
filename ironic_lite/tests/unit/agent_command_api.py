"""The agent's command API in process (no HTTP server): what the agent
unit tests send it."""

import json
from pathlib import Path
from typing import Any

import webob

from ironic_lite.agent import api
from ironic_lite.agent import commands

TOKEN = 'agent-token'


def prepare_image(
    disk: Path,
    image_info: dict[str, Any],
    configdrive: Any = None,
    **runner_args: Any,
) -> dict[str, Any]:
    """``standby.prepare_image`` on ``disk``; the command's result once
    it ended (``runner_args``: more of the CommandRunner's)."""
    runner = commands.CommandRunner([disk], 0, True, **runner_args)
    app = api.AgentAPI(runner, lambda: TOKEN)
    req = webob.Request.blank(
        f'/v1/commands/?wait=true&agent_token={TOKEN}', method='POST'
    )
    req.body = json.dumps(
        {
            'name': 'standby.prepare_image',
            'params': {'image_info': image_info, 'configdrive': configdrive},
        }
    ).encode()
    res = req.get_response(app)
    assert res.status_int == 200, res.body
    body: dict[str, Any] = json.loads(res.body)
    if body['command_status'] == 'RUNNING':
        result = runner.get(body['id'])
        assert result is not None
        assert result.done.wait(60)
        body = result.serialize()
    return body
