"""The console log of a server (``os-getConsoleOutput``), as upstream.

The API asks the server's compute agent (an RPC call), whose driver
reads the guest's log; the agent keeps its last lines (split at each
newline, as upstream: a log that ends with one has an empty last line),
and the API removes the control characters upstream removes (all but
tab and newline) before answering ``{"output": ...}``.
"""

import re

#: What upstream removes from the output (control characters but tab
#: and newline).
_CONTROL = re.compile('[\x00-\x08\x0b-\x1f]')


def tail(log: str, length: int | None) -> str:
    """The last ``length`` lines of ``log``; all of it for None or a
    negative length (the API's -1: unlimited), nothing for 0."""
    if length is None or length < 0:
        return log
    if length == 0:
        return ''
    return '\n'.join(log.split('\n')[-length:])


def cleaned(output: str) -> str:
    return _CONTROL.sub('', output)
