"""Extract and run the shell examples of a reStructuredText document.

A block is runnable when a ``.. runnable`` comment comes before it
(``.. runnable-emulated``: a block for an all-in-one with emulated
machines, run apart). The
block is the next literal block (a paragraph ending in ``::``) or
``.. code-block:: console`` directive. In a console block only the
commands run: the lines after a ``$`` prompt and their ``\\``
continuations; the other lines are the output shown to the reader.
"""

import os
from pathlib import Path
import subprocess
import sys

MARK = '.. runnable'
#: Blocks that need ``--baremetal-emulate 1`` (run by test_aio_emulate).
EMULATED = '.. runnable-emulated'


def _is_opening(line: str) -> bool:
    return line.rstrip().endswith('::') or line.lstrip().startswith(
        '.. code-block::'
    )


def _body(lines: list[str], index: int) -> tuple[list[str], int]:
    """The indented lines from ``index`` on, dedented."""
    body: list[str] = []
    while index < len(lines) and (
        not lines[index].strip() or lines[index].startswith(' ')
    ):
        body.append(lines[index])
        index += 1
    indent = min(
        (len(line) - len(line.lstrip()) for line in body if line.strip()),
        default=0,
    )
    return [line[indent:] for line in body], index


def _commands(body: list[str]) -> list[str]:
    """The commands of a console block: the ``$`` lines, and the lines
    that continue one (after a ``\\`` or inside a quoted string)."""
    commands: list[str] = []
    command = ''
    for line in body:
        if line.startswith('$ ') or command:
            text = line[2:] if line.startswith('$ ') else line
            commands.append(text)
            command += text + '\n'
            quoted = command.count("'") % 2 == 1
            if not text.rstrip().endswith('\\') and not quoted:
                command = ''
    return commands


def runnable_blocks(text: str, mark: str = MARK) -> list[str]:
    """The shell text of each block marked ``mark``, in order."""
    lines = text.splitlines()
    blocks: list[str] = []
    index = 0
    while index < len(lines):
        if lines[index].strip() != mark:
            index += 1
            continue
        index += 1
        while index < len(lines) and not _is_opening(lines[index]):
            index += 1
        console = 'code-block' in lines[index] if index < len(lines) else False
        body, index = _body(lines, index + 1)
        if console or any(line.startswith('$ ') for line in body):
            body = _commands(body)
        blocks.append('\n'.join(body).strip())
    return blocks


def venv_env() -> dict[str, str]:
    """The environment of an activated virtualenv, without a cloud
    chosen by whoever runs the tests."""
    env = {
        **os.environ,
        'PATH': f'{Path(sys.executable).parent}:{os.environ["PATH"]}',
    }
    for name in ('OS_CLOUD', 'OS_CLIENT_CONFIG_FILE'):
        env.pop(name, None)
    return env


def run_blocks(
    blocks: list[str],
    cwd: Path,
    timeout: float = 600,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """Run the blocks in one ``bash -e -x`` in ``cwd``, with ``env``
    added to :func:`venv_env`."""
    script = '\n'.join(['set -ex', *blocks])
    return subprocess.run(
        ['bash', '-c', script],
        cwd=cwd,
        env={**venv_env(), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
