"""Ports for the servers a test starts, chosen so that no other process
takes them before the server binds.

A port the kernel handed out (bind to port 0) and that was closed again
goes back to the pool every outgoing connection draws its local port
from: between picking it and the server's bind, a client of another test
worker (to RabbitMQ, to MariaDB, to an API) could take it. CI once failed
so ("ironic-lite-api cannot listen on 127.0.0.1:35771: Address already
in use"). Test ports therefore come from below the kernel's ephemeral
range, each pytest-xdist worker from a slice of its own, so two workers
never pick the same port either.
"""

import os
from pathlib import Path
import socket

LOCALHOST = '127.0.0.1'

PORT_FLOOR = 10000
_handed_out: set[tuple[int, int]] = set()


def _ephemeral_floor() -> int:
    try:
        text = Path('/proc/sys/net/ipv4/ip_local_port_range').read_text()
        return int(text.split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _port_slice() -> range:
    ceiling = _ephemeral_floor()
    if ceiling - PORT_FLOOR < 1000:
        raise RuntimeError(
            f'the ephemeral port range starts at {ceiling}: test ports '
            f'need {PORT_FLOOR}-{PORT_FLOOR + 1000} outside it (see '
            f'/proc/sys/net/ipv4/ip_local_port_range)'
        )
    # One slice per xdist worker and one more for processes outside
    # pytest (tools/devstack.py run by hand).
    count = int(os.environ.get('PYTEST_XDIST_WORKER_COUNT') or 1)
    worker = os.environ.get('PYTEST_XDIST_WORKER')
    if worker is not None:
        index = int(worker.removeprefix('gw') or 0)
    elif 'PYTEST_VERSION' in os.environ:
        index = 0
    else:
        index = count
    size = (ceiling - PORT_FLOOR) // (count + 1)
    start = PORT_FLOOR + index * size
    return range(start, start + size)


def _bindable(port: int, kind: int) -> bool:
    with socket.socket(socket.AF_INET, kind) as sock:
        try:
            sock.bind((LOCALHOST, port))
        except OSError:
            return False
        return True


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    """A port of 127.0.0.1 that nothing uses, outside the ephemeral range
    and in this test worker's slice, never handed out twice by this
    process (``kind``: ``socket.SOCK_DGRAM`` for a UDP port)."""
    ports = _port_slice()
    # A different starting point for each process of the worker (a test
    # and the tools it runs as children).
    offset = (os.getpid() * 7919 + len(_handed_out)) % len(ports)
    for step in range(len(ports)):
        port = ports[(offset + step) % len(ports)]
        if (kind, port) in _handed_out or not _bindable(port, kind):
            continue
        _handed_out.add((kind, port))
        return port
    raise RuntimeError(f'no free port in {ports.start}-{ports.stop - 1}')
