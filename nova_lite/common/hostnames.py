"""Server host names (``instances.hostname``), as upstream Nova gives
them.

A server asked for without a ``hostname`` (any create before 2.90)
gets one derived from its display name: :func:`sanitize` keeps what
RFC 952/1123 allow except the length rule, at most 63 characters (the
lowest limit of Linux, Windows and dnsmasq). A name that leaves nothing
gives ``Server-<uuid>``; each server of a multiple create gets the
suffix ``-<n>`` (1-based), as its display name does.
"""

#: The longest host name kept (dnsmasq's limit).
MAX_LENGTH = 63
#: Characters that become a hyphen.
_TO_HYPHEN = frozenset(' _.')


def _latin1(name: str) -> str:
    """``name`` without the characters beyond U+00FF."""
    return ''.join(char for char in name if ord(char) <= 0xFF)


def _kept(char: str) -> str:
    """What one character becomes: a hyphen for a space, underscore or
    period; itself for a letter, digit or hyphen (Unicode letters and
    digits of Latin-1 included); nothing otherwise."""
    if char in _TO_HYPHEN:
        return '-'
    if char == '-' or char.isalnum():
        return char
    return ''


def sanitize(name: str, default: str | None = None) -> str:
    """A host name from ``name`` (upstream's ``sanitize_hostname``).

    The name is cut to 63 characters *before* it is cleaned, so the
    result may be shorter; leading and trailing hyphens go last. When
    nothing is left, ``default`` (cut to 63 characters, not cleaned)
    or ``''``.
    """
    cleaned = ''.join(_kept(char) for char in _latin1(name)[:MAX_LENGTH])
    cleaned = cleaned.lower().strip('-')
    if not cleaned and default is not None:
        return default[:MAX_LENGTH]
    return cleaned


def for_server(
    display_name: str | None, uuid: str, count: int = 1, index: int = 0
) -> str:
    """The host name of a server created without one: its sanitized
    display name (``Server-<uuid>`` when that leaves nothing), with the
    suffix ``-<index + 1>`` when ``count`` servers are created at once
    (the display name given, before its own suffix)."""
    hostname = sanitize(display_name or '')
    if not hostname:
        return f'Server-{uuid}'
    if count > 1:
        return f'{hostname}-{index + 1}'
    return hostname
