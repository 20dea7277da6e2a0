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


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + '...'


def describe(result: Result) -> list[str]:
    """The lines about one differing request."""
    diff = result.difference
    lines = [
        f'- **{result.step}**: `{result.method} {result.path}` '
        f'(version {result.version or "none"})'
        + (' (set-up step)' if result.setup else '')
        + (f' body `{_short(result.body)}`' if result.body else '')
    ]
    up, lite = result.statuses
    lines.append(
        f'  - status: upstream {up}, ironic_lite {lite}'
        + (' (DIFFERENT)' if up != lite else '')
    )
    for side, text in zip(
        ('upstream', 'ironic_lite'), result.messages, strict=True
    ):
        if text:
            lines.append(f'  - {side} error: {_short(text)}')
    if diff.body_kind:
        lines.append(
            f'  - body: upstream {diff.body_kind[0]}, '
            f'ironic_lite {diff.body_kind[1]}'
        )
    if diff.only_upstream:
        lines.append(
            '  - keys only upstream has: ' + _paths(diff.only_upstream)
        )
    if diff.only_lite:
        lines.append(
            '  - keys only ironic_lite has: ' + _paths(diff.only_lite)
        )
    for path, (a, b) in diff.values.items():
        lines.append(
            f'  - value `{path}`: upstream {_short(a)}, '
            f'ironic_lite {_short(b)}'
        )
    lines += [f'  - note: {note}' for note in result.notes]
    if result.accepted:
        lines.append(
            '  - accepted as known: '
            + _paths(result.accepted)
            + ' ('
            + '; '.join(result.reasons)
            + ')'
        )
    if result.known and not result.accepted:
        lines.append(f'  - known difference: {result.known}')
    return lines


def summary(results: list[Result]) -> tuple[int, int, int]:
    """(compared, differing, differing and not known); a request not
    sent to either side is not compared."""
    differing = [r for r in results if r.differs]
    return (
        sum(1 for r in results if not r.skipped),
        len(differing),
        sum(1 for r in differing if not r.known),
    )


def _top(path: str) -> str:
    """The field a key path is about: ``extra.a`` -> ``extra``,
    ``nodes[].links[].href`` -> ``nodes[].links`` (in a list, the
    element's field)."""
    parts = path.split('.')
    if parts[0] == 'error_message':
        return path
    if parts[0].endswith('[]') and len(parts) > 1:
        return f'{parts[0]}.{parts[1].removesuffix("[]")}'
    return parts[0].removesuffix('[]')


def _outermost(fields: set[str]) -> set[str]:
    """Without ``a[].b`` when ``a`` itself is listed."""
    return {
        f
        for f in fields
        if f.split('[]')[0] == f or f.split('[]')[0] not in fields
    }


def overview(items: list[Result]) -> list[str]:
    """Per resource: the fields one side lacks in answers both gave
    with the same status, and how many statuses differ (set-up steps,
    such as creating the node a port belongs to, left out)."""
    only_up: set[str] = set()
    only_lite: set[str] = set()
    statuses = 0
    for result in items:
        if not result.differs or result.setup:
            continue
        if result.difference.status:
            statuses += 1
            continue
        only_up |= {_top(p) for p in result.difference.only_upstream}
        only_lite |= {_top(p) for p in result.difference.only_lite}
    lines = [f'- requests with a different status: {statuses}']
    only_up, only_lite = _outermost(only_up), _outermost(only_lite)
    if only_up:
        lines.append(
            '- fields only upstream returns (same status): '
            + _paths(sorted(only_up))
        )
    if only_lite:
        lines.append(
            '- fields only ironic_lite returns (same status): '
            + _paths(sorted(only_lite))
        )
    return lines


def render(results: list[Result], meta: dict[str, Any]) -> str:
    total, differing, unknown = summary(results)
    out = [
        '# Bare Metal API differential report',
        '',
        f'Upstream: {meta.get("upstream")}; ironic_lite: {meta.get("lite")}.',
        '',
        f'**{total} requests compared, {differing} differ '
        f'({unknown} not listed as known).**',
        '',
        '| resource | requests | same | differ | known |',
        '| --- | --- | --- | --- | --- |',
    ]
    by_resource: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        by_resource[result.resource].append(result)
    for resource, items in by_resource.items():
        compared, diff, unk = summary(items)
        out.append(
            f'| {resource} | {compared} | {compared - diff} '
            f'| {diff} | {diff - unk} |'
        )
    for resource, items in by_resource.items():
        compared, diff, _ = summary(items)
        out += [
            '',
            f'## {resource} ({compared} requests, {diff} differ)',
            '',
        ] + overview(items)
        by_seq: dict[str, list[Result]] = defaultdict(list)
        for result in items:
            by_seq[result.sequence].append(result)
        for seq, seq_items in by_seq.items():
            seq_compared, seq_diff, _ = summary(seq_items)
            out += [
                '',
                f'### {seq}: {seq_compared} requests, {seq_diff} differ',
                '',
            ]
            for result in seq_items:
                if result.differs:
                    out += describe(result)
                elif result.skipped:
                    out.append(f'- {result.step}: {"; ".join(result.notes)}')
                else:
                    out.append(
                        f'- {result.step}: same (status {result.statuses[0]})'
                    )
    return '\n'.join(out) + '\n'
