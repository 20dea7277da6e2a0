"""baremetal_diff: compare ironic_lite's Bare Metal API with upstream
Ironic 39, request by request.

    .venv/bin/python tools/baremetal_diff [--oracle-venv /work/ironic-oracle]
        [--scenarios FILE] [--known FILE] [--report report.md]
        [--json report.json] [--only GLOB]

Starts upstream Ironic (the oracle) and ironic_lite on 127.0.0.1, sends
each scenario's requests to both, compares statuses and key sets and
stops both. Exit status: 0 when every difference is listed in the
known-differences file, 1 when some is not, 2 when a server or the
scenario file is unusable.
"""

import argparse
import fnmatch
import os
from pathlib import Path
import sys
import tempfile
import uuid

HERE = Path(__file__).resolve().parent
if __package__ in (None, ''):
    sys.path.insert(0, str(HERE.parent))

from baremetal_diff import report  # noqa: E402
from baremetal_diff import runner  # noqa: E402
from baremetal_diff import scenarios  # noqa: E402
from baremetal_diff import servers  # noqa: E402

ROOT = HERE.parents[1]


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog='baremetal_diff', description=__doc__.split('\n\n')[0]
    )
    parser.add_argument(
        '--oracle-venv',
        type=Path,
        default=Path('/work/ironic-oracle'),
        help='virtualenv with ironic==39.0.0 installed',
    )
    parser.add_argument(
        '--lite-venv',
        type=Path,
        help='virtualenv of this tree (default: .venv)',
    )
    parser.add_argument('--scenarios', default=str(HERE / 'scenarios.yaml'))
    parser.add_argument(
        '--known',
        default=str(HERE / 'known_differences.yaml'),
        help='accepted differences ("" for none)',
    )
    parser.add_argument('--report', default='baremetal-diff-report.md')
    parser.add_argument('--json', default='baremetal-diff-report.json')
    parser.add_argument(
        '--only',
        action='append',
        default=[],
        help='run only sequences matching this glob '
        '(repeatable), e.g. "nodes*"',
    )
    parser.add_argument('--oracle-port', type=int, default=16385)
    parser.add_argument('--lite-port', type=int, default=16386)
    parser.add_argument(
        '--lite-compute-port',
        type=int,
        default=16387,
        help='port of the Compute API stacklite-aio also starts (unused here)',
    )
    parser.add_argument(
        '--oracle-url',
        help='use this running upstream server instead of starting one',
    )
    parser.add_argument(
        '--lite-url',
        help='use this running ironic_lite instead of starting one',
    )
    parser.add_argument(
        '--wait-timeout',
        type=float,
        default=30.0,
        help='seconds a step waits for a node or allocation to settle',
    )
    parser.add_argument(
        '--keep-state',
        action='store_true',
        help='keep the temporary state directories '
        '(configuration, databases, logs)',
    )
    return parser.parse_args(argv)


def _start(
    args: argparse.Namespace, state: Path
) -> tuple[list[servers.Server], str, str, str]:
    started: list[servers.Server] = []
    oracle_url, lite_url = args.oracle_url, args.lite_url
    upstream = 'running server'
    try:
        if not oracle_url:
            upstream = 'ironic ' + servers.check_oracle_venv(args.oracle_venv)
            server = servers.oracle(
                args.oracle_venv, state / 'oracle', args.oracle_port
            )
            started.append(server)
            server.start()
            oracle_url = server.url
        if not lite_url:
            server = servers.lite(
                ROOT,
                args.lite_venv,
                state / 'lite',
                args.lite_port,
                args.lite_compute_port,
            )
            started.append(server)
            server.start()
            lite_url = server.url
    except BaseException:
        for server in started:
            server.stop()
        raise
    return started, oracle_url, lite_url, upstream


def _sequences(args: argparse.Namespace) -> list[dict]:
    seqs = scenarios.load(args.scenarios)
    if args.only:
        seqs = [
            s
            for s in seqs
            if any(fnmatch.fnmatchcase(s['name'], g) for g in args.only)
        ]
    return seqs


def run(args: argparse.Namespace, state: Path) -> int:
    seqs = _sequences(args)
    known = runner.load_known(args.known)
    started, oracle_url, lite_url, upstream = _start(args, state)
    try:
        sides = [
            scenarios.Side('upstream', oracle_url),
            scenarios.Side('ironic_lite', lite_url),
        ]
        for side in sides:
            side.discover()
        results: list[runner.Result] = []
        for seq in seqs:
            print(f'baremetal_diff: {seq["name"]}', file=sys.stderr)
            results += runner.run_sequence(
                seq, sides, uuid.uuid4().hex[:6], args.wait_timeout
            )
    finally:
        for server in started:
            server.stop()
    runner.apply_known(results, known)
    meta = {
        'upstream': f'{upstream} at {oracle_url} (max {sides[0].max_version})',
        'lite': f'{lite_url} (max {sides[1].max_version})',
        'scenarios': args.scenarios,
        'known': args.known,
    }
    Path(args.report).write_text(report.render(results, meta))
    runner.write_json(args.json, results, meta)
    total, differing, unknown = report.summary(results)
    print(
        f'baremetal_diff: {total} requests, {differing} differ, '
        f'{unknown} not known; report {args.report}, JSON {args.json}'
    )
    return 1 if unknown else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.keep_state:
            state = Path(tempfile.mkdtemp(prefix='baremetal-diff-'))
            print(f'baremetal_diff: state in {state}', file=sys.stderr)
            return run(args, state)
        with tempfile.TemporaryDirectory(prefix='baremetal-diff-') as tmp:
            return run(args, Path(tmp))
    except (servers.ServerError, scenarios.ScenarioError, OSError) as exc:
        print(f'baremetal_diff: {exc}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    os.umask(0o077)
    sys.exit(main())
