"""The failure report of a model sequence: enough to replay it and to
see what broke.

It names the seed and the commands that replay the sequence (the same
seed, or exactly the same steps), the steps with the API's answers, the
invariants broken, every instance with its records and disk files, and
the log lines of every service that name the instances involved.
"""

import json
import re
import shlex
from typing import TYPE_CHECKING

from nova_lite.tests.integration import model
from nova_lite.tests.integration import model_steps

if TYPE_CHECKING:
    from nova_lite.tests.integration.model_run import Sequence

MODULE = 'nova_lite.tests.integration.test_evacuation_model'
UUID = re.compile(
    r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
    r'[0-9a-f]{12}'
)
LINES_PER_INSTANCE = 30
TAIL_LINES = 15


def replay_commands(seq: 'Sequence') -> str:
    steps = model_steps.dumps([step for step, _ in seq.done])
    return (
        f'  .venv/bin/python -m {MODULE} --sequences 1 --seed '
        f'{seq.seed} --steps {seq.count}\n  or exactly these steps:\n'
        f'  .venv/bin/python -m {MODULE} --sequences 1 --replay '
        f'{shlex.quote(steps)}'
    )


def _servers(seq: 'Sequence') -> str:
    return ', '.join(f'{slot}={uuid}' for slot, uuid in seq.servers.items())


def instance_log_lines(seq: 'Sequence', text: str) -> str:
    """The last lines of every service log naming each instance that
    ``text`` names."""
    uuids = sorted(set(UUID.findall(text)) & set(seq.servers.values()))
    out = []
    for uuid in uuids:
        lines = []
        for path in seq.cloud.dep.log_files():
            if path.suffix != '.log':
                continue
            with open(path, errors='replace') as handle:
                lines += [
                    f'{path.stem}: {line.rstrip()}'
                    for line in handle
                    if uuid in line and ' DEBUG ' not in line
                ]
        out.append(f'--- {uuid} ---')
        out += lines[-LINES_PER_INSTANCE:]
    return '\n'.join(out)


def report(seq: 'Sequence', headline: str, violations: list[str]) -> str:
    steps = '\n'.join(
        f'  {n:2}. {step} -> {outcome}'
        for n, (step, outcome) in enumerate(seq.done, 1)
    )
    broken = '\n'.join(f'  - {v}' for v in violations) or '  (none)'
    snap = seq.snap
    text = (
        f'Model sequence seed={seq.seed} FAILED: {headline}\n'
        f'Replay:\n{replay_commands(seq)}\n'
        f'Steps ({len(seq.done)} of {seq.count}):\n{steps}\n'
        f'Invariants broken:\n{broken}\n'
        f'Servers: {_servers(seq)}\n'
        f'Processes: {json.dumps(seq.cloud.procs)}\n'
        f'Notes: {seq.notes}\n'
        f'Instances now:\n{model.summary(snap) if snap else "-"}\n'
    )
    logs = instance_log_lines(seq, text)
    tails = seq.cloud.dep.log_tails(TAIL_LINES)
    return (
        f'{text}Log lines naming those instances (not DEBUG):\n{logs}\n'
        f'Log tails:\n{tails}'
    )
