"""``rescue.finalize_rescue``: the rescue password, written where
ironic-python-agent writes it (``/etc/ipa-rescue-config/ipa-rescue-
password`` by default, ``[DEFAULT]rescue_password_file``) for the rescue
environment to set the login's password from. The conductor sends a
crypt(3) hash (``hashed``: true); a password sent in clear is hashed
here (bcrypt) before it is written. The file is 0600 in a 0700
directory."""

import os
from pathlib import Path

import bcrypt

DEFAULT_FILE = Path('/etc/ipa-rescue-config/ipa-rescue-password')


class RescueError(Exception):
    """The password could not be written (what to fix in the message)."""


def write_password(path: Path | None, password: object, hashed: bool) -> Path:
    """Write the hash of ``password`` (as given when ``hashed``); the
    file.

    :raises RescueError: no password, or the file cannot be written.
    """
    if not isinstance(password, str) or not password:
        raise RescueError('rescue_password is required')
    if hashed:
        value = password
    else:
        value = bcrypt.hashpw(password.encode(), bcrypt.gensalt()).decode()
    target = path or DEFAULT_FILE
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as handle:
            handle.write(value + '\n')
    except OSError as exc:
        raise RescueError(
            f'cannot write the rescue password to {target}: {exc} (set '
            '--rescue_password_file to a writable path)'
        ) from exc
    return target
