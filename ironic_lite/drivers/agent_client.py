"""The conductor's client of a node's ramdisk agent: upstream's
``agent_client`` subset for cleaning.

Requests go to ``driver_internal_info['agent_url']`` + ``/v1/commands/``
with the node's ``agent_secret_token`` as the ``agent_token`` query
parameter; bodies are ``{"name": "<extension>.<command>", "params":
{...}}``; every answer is a command result (``id``, ``command_name``,
``command_status``, ``command_error``, ``command_result``).
"""

from typing import Any

from oslo_log import log as logging
import requests

from ironic_lite import exception
from ironic_lite.common import agent_token
from ironic_lite.drivers import base

LOG = logging.getLogger(__name__)


def command_error(command: dict[str, Any]) -> str:
    """The agent's error of a failed command, as upstream reads it."""
    error = command.get('command_error')
    if error is None:
        return 'Invalid agent response'
    if isinstance(error, dict):
        return str(error.get('details') or error.get('message') or error)
    return str(error)


class AgentClient:
    """One node's agent (the node as the task holds it)."""

    def __init__(self, task: base.TaskLike, timeout: float) -> None:
        self.node = task.node
        self.timeout = timeout
        url = self.node.driver_internal_info.get(agent_token.URL_KEY)
        if not url:
            raise exception.AgentConnectionFailed(
                node=self.node.uuid,
                reason='no agent_url: the agent has not heartbeated yet',
            )
        self.url = f'{str(url).rstrip("/")}/v1/commands/'

    def _params(self) -> dict[str, str]:
        token = self.node.driver_internal_info.get(agent_token.TOKEN_KEY)
        return {'agent_token': str(token)} if token else {}

    def _answer(
        self, command: str, response: requests.Response
    ) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            body = {'faultstring': response.text[:500]}
        if response.status_code >= 400:
            raise exception.AgentAPIError(
                command=command,
                node=self.node.uuid,
                status=response.status_code,
                error=body.get('faultstring', body),
            )
        if not isinstance(body, dict):
            raise exception.AgentAPIError(
                command=command,
                node=self.node.uuid,
                status=response.status_code,
                error=f'not an object: {body}',
            )
        return body

    def _request(
        self, method: str, command: str, url: str, **kwargs: Any
    ) -> dict[str, Any]:
        try:
            response = requests.request(
                method,
                url,
                params=self._params() | kwargs.pop('params', {}),
                timeout=self.timeout,
                **kwargs,
            )
        except requests.RequestException as exc:
            raise exception.AgentConnectionFailed(
                node=self.node.uuid, reason=str(exc)
            )
        return self._answer(command, response)

    def command(
        self, name: str, params: dict[str, Any], wait: bool = False
    ) -> dict[str, Any]:
        """``POST /v1/commands/?wait=...``: the command's result."""
        return self._request(
            'POST',
            name,
            self.url,
            params={'wait': str(wait).lower()},
            json={'name': name, 'params': params},
        )

    def get_command(self, command_id: str) -> dict[str, Any]:
        """``GET /v1/commands/{id}``: one command's result."""
        return self._request('GET', command_id, self.url + command_id)

    def _node_params(self) -> dict[str, Any]:
        node = self.node
        info = {
            k: v
            for k, v in node.driver_internal_info.items()
            if k != agent_token.TOKEN_KEY
        }
        return {
            'node': {
                'uuid': node.uuid,
                'properties': node.properties,
                'driver_internal_info': info,
            },
            'ports': [],
        }

    def get_clean_steps(self) -> dict[str, Any]:
        return self.command(
            'clean.get_clean_steps', self._node_params(), wait=True
        )

    def execute_clean_step(
        self, step: dict[str, Any], clean_version: Any
    ) -> dict[str, Any]:
        return self.command(
            'clean.execute_clean_step',
            {
                'step': step,
                **self._node_params(),
                'clean_version': clean_version,
            },
        )
