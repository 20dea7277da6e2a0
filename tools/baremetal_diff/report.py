"""The human-readable report (Markdown), grouped by resource."""

from collections import defaultdict
import json
from typing import Any

from baremetal_diff.runner import Result

#: Paths listed per difference before "... and N more".
_MAX_PATHS = 80


def _paths(paths: list[str]) -> str:
    shown = ', '.join(f'`{p}`' for p in paths[:_MAX_PATHS])
    more = len(paths) - _MAX_PATHS
    return shown + (f' ... and {more} more' if more > 0 else '')


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 120 else text[:117] + '...'


def describe(result: Result) -> list[str]:
    """The lines about one differing request."""
    diff = result.difference
    lines = [f'- **{result.step}**: `{result.method} {result.path}` '
             f'(version {result.version or "none"})'
             + (f' body `{_short(result.body)}`' if result.body else '')]
    up, lite = result.statuses
    lines.append(f'  - status: upstream {up}, ironic_lite {lite}'
                 + (' (DIFFERENT)' if up != lite else ''))
    if diff.body_kind:
        lines.append(f'  - body: upstream {diff.body_kind[0]}, '
                     f'ironic_lite {diff.body_kind[1]}')
    if diff.only_upstream:
        lines.append('  - keys only upstream has: '
                     + _paths(diff.only_upstream))
    if diff.only_lite:
        lines.append('  - keys only ironic_lite has: '
                     + _paths(diff.only_lite))
    for path, (a, b) in diff.values.items():
        lines.append(f'  - value `{path}`: upstream {_short(a)}, '
                     f'ironic_lite {_short(b)}')
    lines += [f'  - note: {note}' for note in result.notes]
    if result.known:
        lines.append(f'  - known difference: {result.known}')
    return lines


def summary(results: list[Result]) -> tuple[int, int, int]:
    """(compared, differing, differing and not known)."""
    differing = [r for r in results if r.differs]
    return (len(results), len(differing),
            sum(1 for r in differing if not r.known))


def render(results: list[Result], meta: dict[str, Any]) -> str:
    total, differing, unknown = summary(results)
    out = ['# Bare Metal API differential report', '',
           f'Upstream: {meta.get("upstream")}; ironic_lite: '
           f'{meta.get("lite")}.', '',
           f'**{total} requests compared, {differing} differ '
           f'({unknown} not listed as known).**', '',
           '| resource | requests | same | differ | known |',
           '| --- | --- | --- | --- | --- |']
    by_resource: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        by_resource[result.resource].append(result)
    for resource, items in by_resource.items():
        _, diff, unk = summary(items)
        out.append(f'| {resource} | {len(items)} | {len(items) - diff} '
                   f'| {diff} | {diff - unk} |')
    for resource, items in by_resource.items():
        _, diff, _ = summary(items)
        out += ['', f'## {resource} ({len(items)} requests, '
                f'{diff} differ)']
        by_seq: dict[str, list[Result]] = defaultdict(list)
        for result in items:
            by_seq[result.sequence].append(result)
        for seq, seq_items in by_seq.items():
            _, seq_diff, _ = summary(seq_items)
            out += ['', f'### {seq}: {len(seq_items)} requests, '
                    f'{seq_diff} differ', '']
            for result in seq_items:
                if result.differs:
                    out += describe(result)
                else:
                    out.append(f'- {result.step}: same (status '
                               f'{result.statuses[0]})')
    return '\n'.join(out) + '\n'
