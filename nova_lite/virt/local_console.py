"""The console log of a local guest (``console.log`` beside its disk).

What a guest's serial console would have printed, one line per event
the driver caused: each boot (from which image, or from the rescue
image), each power off, pause, suspend and resume, with the UTC time.
``openstack console log show`` reads it (os-getConsoleOutput). It stays
with the instance's directory (deleted with it); a guest moved to
another host starts a new log there, as a hypervisor's would.
"""

import datetime
from pathlib import Path

CONSOLE_LOG = 'console.log'
#: The most a log keeps: older lines go when it grows past this.
MAX_BYTES = 64 * 1024


def _stamp() -> str:
    return datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%dT%H:%M:%SZ')


def append(path: Path, *lines: str) -> None:
    """Add ``lines``; the oldest lines go once the log passes
    MAX_BYTES."""
    text = ''.join(f'[{_stamp()}] {line}\n' for line in lines)
    with open(path, 'a', encoding='utf-8') as log:
        log.write(text)
        size = log.tell()
    if size > MAX_BYTES:
        kept = path.read_bytes()[-MAX_BYTES // 2 :]
        kept = kept[kept.find(b'\n') + 1 :]
        part = path.with_name(path.name + '.part')
        part.write_bytes(kept)
        part.replace(path)


def boot_lines(boot: int, source: str, hostname: str | None) -> list[str]:
    """What a boot prints: where it boots from and the login prompt."""
    return [
        f'Booting from {source} (boot {boot})',
        f'{hostname or "localhost"} login:',
    ]


def read(path: Path) -> str:
    """The log ('' for a guest that has none yet)."""
    try:
        return path.read_text(encoding='utf-8', errors='replace')
    except FileNotFoundError:
        return ''
