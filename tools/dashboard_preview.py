"""Draw etc/grafana/stacklite.json's panels as one HTML page.

Not Grafana: every panel's PromQL expressions (``$job`` matching any
job) are evaluated by a running Prometheus over its HTTP API
(``/api/v1/query_range``), and each series is drawn as an inline SVG
line, one small chart per panel, in the dashboard's order. Used for
the picture in doc/source/admin/metrics.rst:

    python tools/dashboard_preview.py --prometheus http://127.0.0.1:9090 \\
        --minutes 10 --out /tmp/dashboard.html
    chromium --headless --screenshot=/tmp/dashboard.png \\
        --window-size=1400,1500 /tmp/dashboard.html
"""

import argparse
import html
import json
from pathlib import Path
import time
import urllib.parse
import urllib.request

ROOT = Path(__file__).resolve().parents[1]
WIDTH, HEIGHT = 420, 150
COLOURS = (
    '#1f77b4',
    '#ff7f0e',
    '#2ca02c',
    '#d62728',
    '#9467bd',
    '#8c564b',
    '#e377c2',
    '#7f7f7f',
    '#bcbd22',
    '#17becf',
)


def query_range(
    prometheus: str, expr: str, start: float, end: float, step: float
) -> list[dict]:
    params = urllib.parse.urlencode(
        {
            'query': expr.replace('$job', '.*'),
            'start': start,
            'end': end,
            'step': step,
        }
    )
    url = f'{prometheus}/api/v1/query_range?{params}'
    with urllib.request.urlopen(url, timeout=10) as resp:
        body = json.load(resp)
    if body.get('status') != 'success':
        raise RuntimeError(f'{expr}: {body}')
    return body['data']['result']


def legend(template: str, labels: dict[str, str]) -> str:
    for key, value in labels.items():
        template = template.replace('{{' + key + '}}', value)
    return template


def _points(values: list[list], start: float, end: float, top: float) -> str:
    out = []
    for stamp, value in values:
        number = float(value)
        if number != number:  # NaN: no requests in the window
            continue
        x = (float(stamp) - start) / max(end - start, 1) * WIDTH
        y = HEIGHT - number / top * (HEIGHT - 10)
        out.append(f'{x:.1f},{y:.1f}')
    return ' '.join(out)


def panel_svg(
    title: str, series: list[tuple[str, list[list]]], start: float, end: float
) -> str:
    """One panel: a titled chart of its series and their legend."""
    numbers = [
        float(v)
        for _, values in series
        for _, v in values
        if float(v) == float(v)
    ]
    top = max(numbers, default=0) or 1.0
    lines = [
        f'<polyline fill="none" stroke="{COLOURS[i % len(COLOURS)]}" '
        f'stroke-width="1.5" points="{_points(values, start, end, top)}"'
        '/>'
        for i, (_, values) in enumerate(series)
    ]
    keys = ''.join(
        f'<li style="color:{COLOURS[i % len(COLOURS)]}">{html.escape(name)}'
        '</li>'
        for i, (name, _) in enumerate(series[:8])
    )
    empty = '' if series else '<p class="none">no data</p>'
    return (
        f'<div class="panel"><h3>{html.escape(title)}</h3>'
        f'<svg width="{WIDTH}" height="{HEIGHT}"><text x="2" y="10">'
        f'max {top:.3g}</text>{"".join(lines)}</svg>{empty}'
        f'<ul>{keys}</ul></div>'
    )


def page(dashboard: dict, prometheus: str, minutes: float) -> str:
    end = time.time()
    start = end - minutes * 60
    step = max(minutes * 60 / 120, 1)
    panels = []
    for panel in dashboard['panels']:
        series = []
        for target in panel.get('targets', []):
            for result in query_range(
                prometheus, target['expr'], start, end, step
            ):
                series.append(
                    (
                        legend(
                            target.get('legendFormat', ''), result['metric']
                        ),
                        result['values'],
                    )
                )
        panels.append(panel_svg(panel['title'], series, start, end))
    when = time.strftime('%Y-%m-%d %H:%M', time.localtime(end))
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><style>'
        'body{font:12px sans-serif;margin:8px}'
        '.panel{display:inline-block;vertical-align:top;width:440px;'
        'margin:4px;border:1px solid #ccc;padding:4px}'
        'h3{font-size:13px;margin:2px}ul{margin:2px;padding-left:16px}'
        'svg{background:#fafafa}</style></head><body>'
        f'<h2>stacklite dashboard preview (not Grafana): the panels of '
        f'etc/grafana/stacklite.json evaluated by Prometheus, last '
        f'{minutes:g} minutes to {when}</h2>{"".join(panels)}</body></html>'
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--prometheus', default='http://127.0.0.1:9090')
    parser.add_argument('--minutes', type=float, default=10)
    parser.add_argument(
        '--dashboard', type=Path, default=ROOT / 'etc/grafana/stacklite.json'
    )
    parser.add_argument('--out', type=Path, required=True)
    args = parser.parse_args()
    dashboard = json.loads(args.dashboard.read_text())
    args.out.write_text(
        page(dashboard, args.prometheus.rstrip('/'), args.minutes)
    )
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
