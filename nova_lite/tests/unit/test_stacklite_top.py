"""stacklite-top's frames, from plain records (no API)."""

from types import SimpleNamespace

import pytest

from stacklite import top


def _node(name, state, target=None, **kw):
    values = dict(
        id=f'uuid-{name}',
        name=name,
        provision_state=state,
        target_provision_state=target,
        clean_step=None,
        service_step=None,
        deploy_step=None,
        is_maintenance=False,
        last_error=None,
    )
    values.update(kw)
    return SimpleNamespace(**values)


def test_nodes_grouped_by_state_with_their_step():
    groups = top.node_rows(
        [
            _node(
                'bm-1',
                'clean wait',
                'available',
                clean_step={'interface': 'deploy', 'step': 'erase_devices'},
            ),
            _node('bm-2', 'available'),
            _node(
                'bm-3',
                'clean failed',
                'manageable',
                is_maintenance=True,
                last_error='step timed out',
            ),
        ]
    )
    assert groups == {
        'clean wait': ['bm-1  -> available  clean_step: deploy.erase_devices'],
        'available': ['bm-2'],
        'clean failed': [
            'bm-3  -> manageable  maintenance  error: step timed out'
        ],
    }


def test_servers_grouped_by_status_and_task_state():
    groups = top.server_rows(
        [
            SimpleNamespace(
                name='vm1',
                status='RESIZE',
                task_state='resize_migrating',
                compute_host='compute-1',
                id='u1',
            ),
            SimpleNamespace(
                name='vm2',
                status='ACTIVE',
                task_state=None,
                compute_host=None,
                id='u2',
            ),
        ]
    )
    assert groups == {
        'RESIZE/resize_migrating': ['vm1  compute-1  u1'],
        'ACTIVE/-': ['vm2  -  u2'],
    }


class _Conn:
    def __init__(self, nodes, fail=False):
        self._nodes, self._fail = nodes, fail
        self.baremetal = SimpleNamespace(nodes=self._list_nodes)
        self.compute = SimpleNamespace(servers=self._list_servers)

    def _list_nodes(self, details):
        assert details
        return self._nodes

    def _list_servers(self, all_projects):
        if self._fail:
            raise RuntimeError('no compute endpoint')
        return []


def test_a_frame_shows_counts_and_an_unavailable_service():
    text = top.frame(
        _Conn(
            [_node('bm-1', 'manageable'), _node('bm-2', 'manageable')],
            fail=True,
        )
    )
    lines = text.splitlines()
    assert lines[1:4] == [
        'Bare metal nodes (2)',
        '  manageable (2)',
        '    bm-1',
    ]
    assert lines[-1] == (
        'Servers: unavailable (RuntimeError: no compute endpoint)'
    )


def test_the_options_are_bounded():
    assert top.parse_args(['--once']).count == 1
    assert top.parse_args(['--interval', '0.5']).count == 0
    with pytest.raises(SystemExit):
        top.parse_args(['--interval', '0'])
    with pytest.raises(SystemExit):
        top.parse_args(['--count', '-1'])


def test_the_aio_banner_names_stacklite_top(tmp_path):
    from stacklite import aio

    text = aio._usage(
        tmp_path / 'clouds.yaml',
        'http://127.0.0.1:8774',
        'http://127.0.0.1:6385',
        'keystone',
        identity_url='http://127.0.0.1:5000/v3',
    )
    assert 'stacklite-top (--once for one screen)' in text
    assert 'Identity (Keystone) http://127.0.0.1:5000/v3' in text
    assert 'openstack quota show' in text
