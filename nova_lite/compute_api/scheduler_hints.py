"""The scheduler hints of a server, kept as given at create (2.100).

Upstream keeps them in the server's request spec as a dict of lists of
strings (a single value becomes a one-item list, numbers and booleans
their string) and shows them so in server show, detail, update and
rebuild from 2.100. They are stored on the instance here
(``instances.scheduler_hints``). Of the hints, the scheduler honours
``group`` (the server group the server joins); the others are kept and
shown only.
"""

from typing import Any

import orjson

from nova_lite import exception

Hints = dict[str, list[str]]
#: What ``instances.scheduler_hints`` (TEXT) holds on every backend; a
#: request body may carry more.
MAX_STORED_BYTES = 65535


def from_request(body: dict[str, Any]) -> dict[str, Any]:
    """The hints of a create request: ``os:scheduler_hints``, else the
    legacy ``OS-SCH-HNT:scheduler_hints`` (as upstream)."""
    if 'os:scheduler_hints' in body:
        return body['os:scheduler_hints'] or {}
    return body.get('OS-SCH-HNT:scheduler_hints') or {}


def _text(value: Any) -> str:
    if isinstance(value, (str, int, float)):
        return str(value)
    # Upstream refuses anything else deep in its object layer; keep it as
    # JSON text rather than fail the request.
    return orjson.dumps(value).decode()


def stored(hints: dict[str, Any]) -> Hints:
    """The form upstream stores hints in (a dict of lists of strings);
    Invalid (a 400) when that is too large to store."""
    result = {
        name: [_text(item) for item in value]
        if isinstance(value, list)
        else [_text(value)]
        for name, value in hints.items()
    }
    if len(orjson.dumps(result)) > MAX_STORED_BYTES:
        raise exception.Invalid(
            reason=f'the scheduler hints take more than {MAX_STORED_BYTES} '
            'bytes as JSON'
        )
    return result
