"""Request text made safe to show: in a message, or in a log line."""

import re


def url_text(value: str) -> str:
    """A WSGI path (latin-1 decoded bytes, PEP 3333) as text for a log
    line or a message; unlike webob's ``req.path`` it never fails,
    whatever bytes the path holds."""
    try:
        return value.encode('latin-1').decode('utf-8', 'backslashreplace')
    except UnicodeEncodeError:
        return value


#: C0 and C1 controls, DEL, and Unicode line and paragraph separators.
_CONTROLS = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029]')


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return ascii(char)[1:-1] if char != '\t' else '\\t'


def printable(text: object) -> str:
    """``text`` with every control character escaped (``\\n``,
    ``\\x1b``), so that it cannot start a forged log line or drive the
    terminal of whoever reads the log."""
    return _CONTROLS.sub(_escape, str(text))
