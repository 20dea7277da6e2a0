"""etc/grafana/stacklite.json: a Grafana dashboard whose every query
uses series that the services export and the metrics guide lists."""

import json
from pathlib import Path
import re

import prometheus_client
import pytest

from ironic_lite import metrics as ironic_metrics
from ironic_lite.tests import db_fixture
from nova_lite.api import metrics as nova_api_metrics
from nova_lite.tests import database

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / 'etc' / 'grafana' / 'stacklite.json'
GUIDE = ROOT / 'doc' / 'source' / 'admin' / 'metrics.rst'
NAME = re.compile(r'\b((?:stacklite|nova_lite|ironic_lite)_[a-z_]+)')
SUFFIXES = ('_bucket', '_count', '_sum')


def _base(name):
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _panels():
    return json.loads(DASHBOARD.read_text())['panels']


def _dashboard_names():
    return {
        _base(name)
        for panel in _panels()
        for target in panel['targets']
        for name in NAME.findall(target['expr'])
    }


def _guide_names():
    return set(
        re.findall(
            r'``((?:stacklite|nova_lite|ironic_lite)_'
            r'[a-z_]+)``',
            GUIDE.read_text(),
        )
    )


@pytest.fixture
def exported(tmp_path):
    """Every family name the APIs' registry exports (both databases)."""
    with (
        database.temporary_database(f'sqlite:///{tmp_path}/n.db'),
        db_fixture.migrated_db(f'sqlite:///{tmp_path}/i.db'),
    ):
        nova_api_metrics.register()
        ironic_metrics.register_api()
        text = prometheus_client.generate_latest().decode()
    return set(re.findall(r'^# TYPE (\S+) ', text, re.M))


def test_every_panel_queries_prometheus():
    panels = _panels()
    assert len(panels) >= 10
    ids = [panel['id'] for panel in panels]
    assert len(ids) == len(set(ids))
    for panel in panels:
        assert panel['type'] in ('timeseries', 'stat', 'table')
        assert set(panel['gridPos']) == {'h', 'w', 'x', 'y'}
        assert panel['targets'], panel['title']
        for target in panel['targets']:
            assert target['datasource']['type'] == 'prometheus'
            assert NAME.search(target['expr']), target['expr']


def test_dashboard_uses_only_documented_exported_series(exported):
    documented = _guide_names()
    assert _dashboard_names() <= documented
    # Counters are listed by their sample name (with _total).
    exported_names = exported | {n + '_total' for n in exported}
    assert documented <= exported_names, documented - exported_names
    assert 'etc/grafana/stacklite.json' in GUIDE.read_text()


def _uses(text, name):
    """Does ``text`` refer to the variable or input ``name``?"""
    return re.search(rf'\$(?:{{{name}(?::\w+)?}}|{name}\b)', text) is not None


def test_every_input_is_used():
    dashboard = json.loads(DASHBOARD.read_text())
    rest = json.dumps({k: v for k, v in dashboard.items() if k != '__inputs'})
    unused = [
        item['name']
        for item in dashboard.get('__inputs', [])
        if not _uses(rest, item['name'])
    ]
    assert not unused, unused


def test_every_variable_is_used_by_a_panel():
    dashboard = json.loads(DASHBOARD.read_text())
    panels = json.dumps(dashboard['panels'])
    names = [var['name'] for var in dashboard['templating']['list']]
    assert names
    unused = [name for name in names if not _uses(panels, name)]
    assert not unused, unused


def test_unused_inputs_and_variables_are_found():
    assert _uses('{"uid": "${datasource}"}', 'datasource')
    assert _uses('up{job=~"$job"}', 'job')
    assert _uses('up{job=~"${job:regex}"}', 'job')
    assert not _uses('up{job=~"$jobs"}', 'job')
    assert not _uses('"uid": "prometheus"', 'DS_PROMETHEUS')


def test_every_panel_queries_series_a_process_exports(exported):
    exported_names = exported | {n + '_total' for n in exported}
    missing = _dashboard_names() - exported_names
    assert not missing, missing


def test_rpc_error_panel_counts_errors_apart_from_expected_ones():
    [panel] = [p for p in _panels() if p['title'].startswith('RPC call err')]
    errors, expected = (t['expr'] for t in panel['targets'])
    assert 'outcome=~"error|timeout"' in errors
    assert 'outcome="expected_error"' in expected
