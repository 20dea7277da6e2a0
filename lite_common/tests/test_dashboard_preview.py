"""tools/dashboard_preview.py's drawing, without Prometheus."""

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / 'tools/dashboard_preview.py'
_SPEC = importlib.util.spec_from_file_location('dashboard_preview', _PATH)
dashboard_preview = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(dashboard_preview)


def test_legend_fills_the_labels():
    assert dashboard_preview.legend(
        '{{api}} {{status}}', {'api': 'compute', 'status': '200'}
    ) == ('compute 200')


def test_a_panel_draws_each_series_and_skips_nan():
    svg = dashboard_preview.panel_svg(
        'Requests',
        [
            ('a', [[0, '1'], [50, 'NaN'], [100, '2']]),
            ('b', [[0, '0'], [100, '0']]),
        ],
        0,
        100,
    )
    assert svg.count('<polyline') == 2
    assert 'points="0.0,80.0 420.0,10.0"' in svg
    assert '<li style="color:#ff7f0e">b</li>' in svg
    assert 'max 2' in svg and 'no data' not in svg


def test_an_empty_panel_says_so():
    assert 'no data' in dashboard_preview.panel_svg('x', [], 0, 1)
