"""Lookup and heartbeats against the Bare Metal API, as
ironic-python-agent does them.

``GET /v1/lookup?addresses=<macs>`` (API 1.68) until the node is found
in a state that allows it; the answer's ``config.agent_token`` is the
token of the command API and of every heartbeat, and
``config.heartbeat_timeout`` paces the heartbeats (every 0.3 to 0.6 of
it, upstream's range) unless ``heartbeat_interval`` is set. Then
``POST /v1/heartbeat/{uuid}`` with ``callback_url``, ``agent_version``
and ``agent_token``, and while a long command runs (an image written,
a disk erased) ``agent_status_message`` saying how far it is (API 1.72:
the conductor records it in the node's ``driver_internal_info`` and
logs it). A heartbeat refused with a 4xx other than 409
means the node forgot this agent (its cleaning ended, it powered off):
the agent looks the node up again, as a rebooted ramdisk would. A
masked token (``******``: the node already has an agent) is no token:
the agent keeps looking up until it gets one.
"""

from collections.abc import Callable
import random
import threading
from typing import Any

from oslo_log import log as logging
import requests

LOG = logging.getLogger(__name__)

API_VERSION = '1.68'
#: The version of heartbeats: ``agent_status_message`` came with 1.72.
HEARTBEAT_API_VERSION = '1.72'
AGENT_VERSION = '10.0.0'
MASK = '******'
#: Seconds an HTTP request to the Bare Metal API may take.
REQUEST_TIMEOUT = 30.0


class Heartbeater:
    """The lookup / heartbeat loop, on a thread of its own."""

    def __init__(
        self,
        api_url: str,
        macs: list[str],
        callback_url: str,
        lookup_interval: float,
        heartbeat_interval: float | None,
        status_message: Callable[[], str | None] = lambda: None,
    ) -> None:
        """``status_message``: what the agent is doing, sent with each
        heartbeat when it says something."""
        self.api_url = api_url.rstrip('/')
        self.macs = macs
        self.callback_url = callback_url
        self.lookup_interval = lookup_interval
        self.heartbeat_interval = heartbeat_interval
        self.status_message = status_message
        self.token: str | None = None
        self.node_uuid: str | None = None
        self._timeout = 300.0
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, name='heartbeater', daemon=True
        )
        self._session = requests.Session()
        self._session.headers.update(
            {'X-OpenStack-Ironic-API-Version': API_VERSION}
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=REQUEST_TIMEOUT + 5)

    def forget(self) -> None:
        """Drop the node's token: no more heartbeats; the machine is
        looked up again (as by an agent booted anew)."""
        self.token = None
        LOG.info('Node %s: token dropped; looking up again', self.node_uuid)

    def _loop(self) -> None:
        while not self._stop.is_set():
            if self.token is None:
                found = self._lookup()
                self._stop.wait(0 if found else self.lookup_interval)
                continue
            self._heartbeat()
            self._stop.wait(self._interval())

    def _interval(self) -> float:
        if self.heartbeat_interval is not None:
            return self.heartbeat_interval
        return self._timeout * random.uniform(0.3, 0.6)

    def _lookup(self) -> bool:
        try:
            response = self._session.get(
                f'{self.api_url}/v1/lookup',
                params={'addresses': ','.join(self.macs)},
                timeout=REQUEST_TIMEOUT,
            )
        except requests.RequestException as exc:
            LOG.warning('Lookup failed: %s; retrying', exc)
            return False
        if response.status_code != 200:
            LOG.info(
                'Lookup answered %s; retrying in %s s',
                response.status_code,
                self.lookup_interval,
            )
            return False
        return self._accept(response.json())

    def _accept(self, body: dict[str, Any]) -> bool:
        config = body.get('config') or {}
        token = config.get('agent_token')
        uuid = (body.get('node') or {}).get('uuid')
        if not token or token == MASK or not uuid:
            LOG.warning(
                'Lookup found node %s without a token for this '
                'agent (another agent has it); retrying',
                uuid,
            )
            return False
        self.node_uuid, self.token = uuid, token
        self._timeout = float(config.get('heartbeat_timeout') or 300)
        LOG.info('Node %s looked up; heartbeats to %s', uuid, self.api_url)
        return True

    def _heartbeat(self) -> None:
        body = {
            'callback_url': self.callback_url,
            'agent_version': AGENT_VERSION,
            'agent_token': self.token,
        }
        message = self.status_message()
        if message:
            body['agent_status_message'] = message
        try:
            response = self._session.post(
                f'{self.api_url}/v1/heartbeat/{self.node_uuid}',
                json=body,
                headers={
                    'X-OpenStack-Ironic-API-Version': HEARTBEAT_API_VERSION
                },
                timeout=REQUEST_TIMEOUT,
            )
        except requests.RequestException as exc:
            LOG.warning('Heartbeat of node %s failed: %s', self.node_uuid, exc)
            return
        if response.status_code == 202:
            LOG.debug('Heartbeat of node %s accepted', self.node_uuid)
        elif 400 <= response.status_code < 500 and (
            response.status_code != 409
        ):
            LOG.warning(
                'Heartbeat of node %s refused (%s: %s); looking the '
                'node up again',
                self.node_uuid,
                response.status_code,
                response.text[:200],
            )
            self.token = None
        else:
            LOG.warning(
                'Heartbeat of node %s answered %s',
                self.node_uuid,
                response.status_code,
            )
