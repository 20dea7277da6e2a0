"""Scenario files and running their requests against one server.

A scenario file (YAML) holds ``sequences``; each has a ``name``, a
``resource`` (the report groups by it), optional ``versions`` (the
sequence runs once per version, each step without its own ``version``
using it) and ``steps``. A step::

    - name: create a node            # optional, defaults to METHOD path
      method: POST                   # default GET
      path: /v1/nodes/${node}/states/provision
      version: "1.31"                # "max": what the side advertises;
                                     # "latest"; "none": no header
      body: {target: manage}         # JSON; ${var} in strings
      save: {node: uuid}             # variable <- key path in the body
      wait: ${node}                  # then poll the node until stable
      wait_for: {path: /v1/allocations/${alloc}, field: state,
                 while: [allocating]}
      setup: true                    # preparation: left out of the
                                     # report's per-resource overview

``${run}`` is a short id unique to the sequence run (``${RUN}`` in upper case,
for trait-like names; ``${mac}`` three MAC address octets made of it);
``${version}`` the
sequence's version. Variables belong to one side: each server has its
own ids.
"""

from collections.abc import Callable
import dataclasses
import json
import re
import time
from typing import Any
import urllib.error
import urllib.request

import yaml

#: Node provision states that end by themselves.
TRANSITIONAL = frozenset(
    {
        'cleaning',
        'clean wait',
        'deploying',
        'wait call-back',
        'deleting',
        'inspecting',
        'inspect wait',
        'verifying',
        'adopting',
        'rescuing',
        'rescue wait',
        'unrescuing',
        'servicing',
        'service wait',
        'unservicing',
    }
)

_VAR = re.compile(r'\$\{(\w+)\}')
_TIMEOUT = 30.0


class ScenarioError(Exception):
    """A scenario file that cannot be run as written."""


def load(path: str) -> list[dict[str, Any]]:
    """The sequences, each expanded once per version."""
    with open(path) as handle:
        data = yaml.safe_load(handle)
    if not isinstance(data, dict) or not isinstance(
        data.get('sequences'), list
    ):
        raise ScenarioError(f'{path}: a mapping with a "sequences" list')
    expanded = []
    for seq in data['sequences']:
        if 'name' not in seq or 'steps' not in seq:
            raise ScenarioError(f'{path}: sequence without name or steps')
        for version in seq.get('versions') or [None]:
            item = dict(seq, version=version)
            if version is not None:
                item['name'] = f'{seq["name"]}@{version}'
            item.setdefault('resource', 'other')
            expanded.append(item)
    return expanded


def substitute(value: Any, variables: dict[str, str]) -> Any:
    """``${name}`` replaced in every string of ``value``; a string that
    is exactly one unknown variable is an error (a failed earlier step
    leaves it unset: the caller reports the step as not run)."""
    if isinstance(value, str):

        def repl(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in variables:
                raise KeyError(name)
            return str(variables[name])

        return _VAR.sub(repl, value)
    if isinstance(value, list):
        return [substitute(item, variables) for item in value]
    if isinstance(value, dict):
        return {
            key: substitute(item, variables) for key, item in value.items()
        }
    return value


def dig(body: Any, path: str) -> Any:
    """``a.b.0.c`` in a decoded JSON body, or None."""
    for part in path.split('.'):
        if isinstance(body, list) and part.isdigit() and int(part) < len(body):
            body = body[int(part)]
        elif isinstance(body, dict):
            body = body.get(part)
        else:
            return None
    return body


@dataclasses.dataclass
class Response:
    status: int
    headers: dict[str, str]
    raw: bytes
    elapsed: float = 0.0


@dataclasses.dataclass
class Side:
    """One server: its URL and the version it advertises."""

    label: str
    url: str
    max_version: str = ''
    variables: dict[str, str] = dataclasses.field(default_factory=dict)

    def request(
        self, method: str, path: str, version: str | None, body: Any = None
    ) -> Response:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header('Content-Type', 'application/json')
        req.add_header('Accept', 'application/json')
        if version is not None:
            req.add_header('X-OpenStack-Ironic-API-Version', version)
        start = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=_TIMEOUT) as resp:
                return Response(
                    resp.status,
                    dict(resp.headers),
                    resp.read(),
                    time.monotonic() - start,
                )
        except urllib.error.HTTPError as exc:
            return Response(
                exc.code,
                dict(exc.headers),
                exc.read(),
                time.monotonic() - start,
            )

    def discover(self) -> None:
        """Read the advertised maximum version from ``GET /``."""
        body = json.loads(self.request('GET', '/', None).raw)
        self.max_version = body['default_version']['version']


def header_version(step_version: str | None, side: Side) -> str | None:
    if step_version is None or step_version == 'none':
        return None
    if step_version == 'max':
        return side.max_version
    return str(step_version)


def node_stable(body: Any) -> bool:
    return (
        isinstance(body, dict)
        and body.get('provision_state') not in TRANSITIONAL
        and body.get('target_power_state') is None
    )


def wait_until(
    fetch: Callable[[], Any],
    done: Callable[[Any], bool],
    timeout: float,
    interval: float = 0.3,
) -> bool:
    """Call ``fetch`` until ``done`` of its result; False on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        if done(fetch()):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def wait_step(
    side: Side, step: dict[str, Any], version: str | None, timeout: float
) -> str | None:
    """The step's ``wait``/``wait_for``; an error text on timeout."""
    if 'wait' in step:
        path = '/v1/nodes/' + substitute(step['wait'], side.variables)
        field, done = 'provision_state', node_stable
    elif 'wait_for' in step:
        spec = step['wait_for']
        path = substitute(spec['path'], side.variables)
        field, waiting = spec['field'], set(spec['while'])

        def done(body: Any) -> bool:
            return dig(body, field) not in waiting
    else:
        return None
    hv = header_version(version, side) or side.max_version
    last: list[Any] = [None]

    def fetch() -> Any:
        resp = side.request('GET', path, hv)
        try:
            last[0] = json.loads(resp.raw)
        except ValueError:
            last[0] = None
        return last[0]

    if wait_until(fetch, done, timeout):
        return None
    return f'still {dig(last[0], field)!r} after {timeout:.0f}s at {path}'
