"""Hostile clients for API server tests: bounded, 127.0.0.1 only."""

from collections.abc import Iterator
import contextlib
import http.client
import socket
import threading
import time
from typing import Any

from lite_common.wsgi import faults
from lite_common.wsgi import server

#: A well-behaved client must be answered within this (seconds).
SERVED_WITHIN = 1.0


@contextlib.contextmanager
def serving(
    app: Any,
    settings: server.Settings = server.Settings(),
    formatter: faults.ErrorFormatter = faults.plain_error,
    name: str = 'test-api',
) -> Iterator[int]:
    """``app`` on its real server on 127.0.0.1: the port."""
    api = server.APIServer(name, app, '127.0.0.1', 0, settings, formatter)
    api.start()
    try:
        yield api.bind_addr[1]
    finally:
        api.stop()


def get(
    port: int,
    path: str = '/',
    timeout: float = 15,
    headers: dict[str, str] | None = None,
) -> int:
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=timeout)
    try:
        conn.request('GET', path, headers=headers or {})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def timed_gets(
    port: int,
    count: int,
    path: str = '/',
    headers: dict[str, str] | None = None,
) -> list[float]:
    """Sequential well-behaved requests (each must be a 200): how long
    each took."""
    took = []
    for _ in range(count):
        started = time.monotonic()
        assert get(port, path, timeout=5, headers=headers) == 200
        took.append(time.monotonic() - started)
    return took


def open_sockets(port: int, count: int) -> list[socket.socket]:
    return [
        socket.create_connection(('127.0.0.1', port), timeout=5)
        for _ in range(count)
    ]


def closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass
        return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


@contextlib.contextmanager
def slow_clients(
    port: int, count: int = 20, every: float = 0.2
) -> Iterator[None]:
    """``count`` clients each sending a request head one byte every
    ``every`` seconds (slowloris) while the block runs."""
    stop = threading.Event()

    def trickle(sock: socket.socket) -> None:
        head = b'GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ' + b'a' * 200
        for byte in head:
            if stop.wait(every):
                return
            try:
                sock.send(bytes([byte]))
            except OSError:
                return

    socks = open_sockets(port, count)
    threads = [threading.Thread(target=trickle, args=(s,)) for s in socks]
    for thread in threads:
        thread.start()
    time.sleep(every * 2)
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        for sock in socks:
            sock.close()


@contextlib.contextmanager
def idle_connections(port: int, count: int = 200) -> Iterator[None]:
    """``count`` connections that send nothing while the block runs."""
    socks = open_sockets(port, count)
    try:
        yield
    finally:
        for sock in socks:
            sock.close()
