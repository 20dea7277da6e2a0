"""The test port allocator: outside the ephemeral range, one slice per
xdist worker, never the same port twice, never one in use."""

import socket

from lite_common.tests import ports


def _slice(monkeypatch, worker: str | None, count: str | None) -> range:
    for name, value in (
        ('PYTEST_XDIST_WORKER', worker),
        ('PYTEST_XDIST_WORKER_COUNT', count),
    ):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    return ports._port_slice()


def test_workers_draw_from_disjoint_slices_below_the_ephemeral_range(
    monkeypatch,
):
    floor = ports._ephemeral_floor()
    slices = [_slice(monkeypatch, f'gw{i}', '3') for i in range(3)]
    monkeypatch.delenv('PYTEST_VERSION', raising=False)
    by_hand = _slice(monkeypatch, None, None)
    for one in (*slices, by_hand):
        assert ports.PORT_FLOOR <= one.start and one.stop <= floor
        assert len(one) >= 1000 // 4
    for i, one in enumerate(slices):
        for other in slices[i + 1 :]:
            assert not set(one) & set(other)
    # A tool run by hand (no pytest) uses the slice after the workers'.
    assert by_hand.start >= _slice(monkeypatch, 'gw0', None).stop


def test_a_port_is_handed_out_once_and_never_one_in_use(monkeypatch):
    monkeypatch.setenv('PYTEST_XDIST_WORKER', 'gw0')
    monkeypatch.setenv('PYTEST_XDIST_WORKER_COUNT', '1')
    monkeypatch.setattr(ports, '_handed_out', set())
    window = ports._port_slice()
    # Occupy the port free_port would try first: it must skip it.
    offset = (ports.os.getpid() * 7919) % len(window)
    with socket.socket() as taken:
        try:
            taken.bind((ports.LOCALHOST, window[offset]))
        except OSError:
            pass  # something else holds it: the skip is tested all the same
        picked = [ports.free_port() for _ in range(20)]
    assert window[offset] not in picked
    assert len(set(picked)) == 20
    assert all(port in window for port in picked)
    udp = ports.free_port(socket.SOCK_DGRAM)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((ports.LOCALHOST, udp))
