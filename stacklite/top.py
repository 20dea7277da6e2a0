"""stacklite-top: long operations at a glance, refreshed.

Shows the bare metal nodes grouped by provision state, with the clean
(or service, deploy) step each one runs now, and the servers grouped by
status and task state, read through the Compute and Bare Metal APIs
with openstacksdk and a clouds.yaml entry (``--os-cloud``/``OS_CLOUD``,
the file from ``OS_CLIENT_CONFIG_FILE``), as any client would.
"""

import argparse
from collections import defaultdict
from collections.abc import Callable
from collections.abc import Iterable
import os
import sys
import time
from typing import Any

# Every API call of a frame gives up after this many seconds.
API_TIMEOUT = 10
CLEAR = '\x1b[H\x1b[2J'


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog='stacklite-top',
        description='Show bare metal nodes by provision state with their '
        'current step, and servers by status and task state, refreshed.',
    )
    parser.add_argument(
        '--os-cloud',
        default=os.environ.get('OS_CLOUD', 'stacklite'),
        help='clouds.yaml entry (default '
        '$OS_CLOUD, else "stacklite"); the file is found as openstack '
        'finds it (OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ...).',
    )
    parser.add_argument(
        '--interval',
        type=float,
        default=2.0,
        help='Seconds between frames (default 2).',
    )
    parser.add_argument(
        '--count',
        type=int,
        default=0,
        help='Stop after this many frames (default 0: until interrupted).',
    )
    parser.add_argument(
        '--once',
        action='store_true',
        help='Print one frame and exit (--count 1).',
    )
    args = parser.parse_args(argv)
    if args.interval <= 0:
        parser.error('--interval must be > 0')
    if args.count < 0:
        parser.error('--count must be >= 0')
    if args.once:
        args.count = 1
    return args


def _step(node: Any) -> str:
    for name in ('clean_step', 'service_step', 'deploy_step'):
        step = getattr(node, name, None)
        if step:
            return f'{name}: {step.get("interface")}.{step.get("step")}'
    return ''


def node_rows(nodes: Iterable[Any]) -> dict[str, list[str]]:
    """Lines per provision state: name (or uuid), target, step."""
    groups: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        target = node.target_provision_state
        parts = [
            node.name or node.id,
            f'-> {target}' if target else '',
            _step(node),
            'maintenance' if node.is_maintenance else '',
            f'error: {node.last_error}' if node.last_error else '',
        ]
        groups[node.provision_state or 'enroll'].append(
            '  '.join(part for part in parts if part)
        )
    return groups


def server_rows(servers: Iterable[Any]) -> dict[str, list[str]]:
    """Lines per ``status/task_state``: name, host, uuid."""
    groups: dict[str, list[str]] = defaultdict(list)
    for server in servers:
        key = f'{server.status}/{server.task_state or "-"}'
        groups[key].append(
            '  '.join(
                str(part)
                for part in (
                    server.name,
                    server.compute_host or '-',
                    server.id,
                )
            )
        )
    return groups


def _section(title: str, groups: dict[str, list[str]]) -> list[str]:
    total = sum(len(rows) for rows in groups.values())
    lines = [f'{title} ({total})']
    for key in sorted(groups):
        lines.append(f'  {key} ({len(groups[key])})')
        lines += [f'    {row}' for row in sorted(groups[key])]
    return lines


def _read(
    what: str,
    list_call: Callable[[], Iterable[Any]],
    rows: Callable[[Iterable[Any]], dict[str, list[str]]],
) -> list[str]:
    try:
        return _section(what, rows(list(list_call())))
    except Exception as exc:  # any API or network error: shown, not fatal
        return [f'{what}: unavailable ({type(exc).__name__}: {exc})']


def frame(conn: Any) -> str:
    """One screen: the nodes, then the servers."""
    lines = [time.strftime('stacklite-top  %Y-%m-%d %H:%M:%S')]
    lines += _read(
        'Bare metal nodes',
        lambda: conn.baremetal.nodes(details=True),
        node_rows,
    )
    lines += _read(
        'Servers', lambda: conn.compute.servers(all_projects=True), server_rows
    )
    return '\n'.join(lines)


def run(conn: Any, args: argparse.Namespace, out: Any = sys.stdout) -> int:
    shown = 0
    while True:
        text = frame(conn)
        clear = CLEAR if out.isatty() and args.count != 1 else ''
        out.write(f'{clear}{text}\n')
        out.flush()
        shown += 1
        if args.count and shown >= args.count:
            return 0
        time.sleep(args.interval)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import openstack

    conn = openstack.connect(cloud=args.os_cloud, api_timeout=API_TIMEOUT)
    try:
        return run(conn, args)
    except KeyboardInterrupt:
        return 0
