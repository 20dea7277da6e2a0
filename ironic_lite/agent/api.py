"""The agent's command API: ironic-python-agent's paths, bodies and
errors (``{"faultcode", "faultstring"}``).

- ``POST /v1/commands/?wait=true|false`` with ``{"name": ..., "params":
  {...}}``: the command's result (a running one without ``wait``).
- ``GET /v1/commands/``: ``{"commands": [results...]}``.
- ``GET /v1/commands/{id}?wait=...``: one result.

Every command path needs ``agent_token`` (a query parameter) equal to
the token of the agent's lookup: 401 ``Token invalid.`` otherwise.
"""

from collections.abc import Callable
from collections.abc import Iterable
import json
import secrets
from typing import Any

from oslo_log import log as logging
import webob

from ironic_lite.agent import commands

LOG = logging.getLogger(__name__)

#: The most seconds a ``wait=true`` request waits for its command.
WAIT_LIMIT = 300.0


def _json(body: Any, status: int = 200) -> webob.Response:
    return webob.Response(
        body=json.dumps(body).encode(),
        status=status,
        content_type='application/json',
        charset=None,
    )


def _fault(status: int, message: str) -> webob.Response:
    return _json(
        {
            'faultcode': 'Server' if status >= 500 else 'Client',
            'faultstring': message,
        },
        status,
    )


def _wait(req: webob.Request, result: commands.CommandResult) -> None:
    if (req.GET.get('wait') or '').lower() == 'true':
        result.done.wait(WAIT_LIMIT)


class AgentAPI:
    """The WSGI application; ``token()`` is the agent's current token
    (None until a lookup gave one)."""

    def __init__(
        self, runner: commands.CommandRunner, token: Callable[[], str | None]
    ) -> None:
        self.runner = runner
        self.token = token

    def _token_valid(self, req: webob.Request) -> bool:
        known, given = self.token(), req.GET.get('agent_token')
        return (
            known is not None
            and given is not None
            and secrets.compare_digest(known, given)
        )

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        response = self.respond(webob.Request(environ))
        result: Iterable[bytes] = response(environ, start_response)
        return result

    def respond(self, req: webob.Request) -> webob.Response:
        """The answer to ``req``."""
        path = req.path_info.rstrip('/')
        if path in ('', '/v1'):
            return _json(
                {'name': 'ironic-lite-agent', 'versions': [{'id': 'v1'}]}
            )
        if not (path == '/v1/commands' or path.startswith('/v1/commands/')):
            return _fault(404, 'Not Found')
        if not self._token_valid(req):
            return _fault(401, 'Token invalid.')
        try:
            return self._commands(req, path)
        except commands.AgentError as exc:
            return _fault(exc.code, str(exc))

    def _commands(self, req: webob.Request, path: str) -> webob.Response:
        if path == '/v1/commands' and req.method == 'POST':
            return self._run(req)
        if path == '/v1/commands' and req.method == 'GET':
            return _json({'commands': self.runner.list()})
        if req.method != 'GET' or path.count('/') != 3:
            return _fault(405, 'Method Not Allowed')
        result = self.runner.get(path.rsplit('/', 1)[1])
        if result is None:
            return _fault(404, 'Command not found')
        _wait(req, result)
        return _json(result.serialize())

    def _run(self, req: webob.Request) -> webob.Response:
        try:
            body = json.loads(req.body or b'null')
        except ValueError:
            body = None
        if (
            not isinstance(body, dict)
            or 'name' not in body
            or not isinstance(body.get('params'), dict)
        ):
            return _fault(400, 'Missing or invalid name or params')
        LOG.info('Command %s received', body['name'])
        result = self.runner.run(str(body['name']), body['params'])
        _wait(req, result)
        return _json(result.serialize())
