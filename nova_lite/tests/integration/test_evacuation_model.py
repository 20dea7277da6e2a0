"""No instance lost, and every flow ends, under any interleaving of
failures: a model-based test over real agent processes (three computes,
the ``local`` driver, RabbitMQ + MariaDB).

Each sequence draws steps with ``random.Random(seed)``, weighted by what
is possible in the state observed after the previous step
(model_steps.py): boot, delete, force-down/up, evacuate (with and
without a host), migrate (with and without a host), resize, confirm,
revert, os-resetState, shelve, shelveOffload, unshelve, rebuild, stop,
start, reboot, compute service delete, SIGSTOP/SIGCONT, SIGKILL, restart
and start of agents, of the conductor and of the API (and a SIGKILL of
the API while it handles a request), and waiting until a frozen or dead
host is down. After every step it waits (bounded) until nothing that can
move moves, and checks the safety invariants (model.py) and liveness
(model_run.py: nothing stays in a task, no migration stays in flight,
past a bound while the processes it needs run); at the end it brings
everything back, restarts every agent and the conductor, and checks the
issue's strict invariants (model_end.py). A failure prints the seed and
the steps, with commands that replay them.

Parameters: the options of the module run as a program (they win), else
the environment: ``STACKLITE_MODEL_SEQUENCES`` (default 2),
``STACKLITE_MODEL_STEPS`` (default 12), ``STACKLITE_MODEL_SEED``
(default 1200; sequence ``i`` uses seed + i), ``STACKLITE_MODEL_REPLAY``
(a JSON list of steps, as a failure prints, or ``@FILE``: run exactly
those). Both are read when the tests are collected, not when the module
is imported.

A long run, outside CI (doc/source/contributor/testing.rst)::

    .venv/bin/python -m nova_lite.tests.integration.test_evacuation_model \\
        --sequences 200 --steps 20 --seed 5000
"""

import argparse
from pathlib import Path
import secrets
import sys
import time
from typing import Any

import pytest

from lite_common.tests import integration
from nova_lite.tests.integration import model_settings
from nova_lite.tests.integration import model_steps
from nova_lite.tests.integration.model_cloud import ModelCloud
from nova_lite.tests.integration.model_run import Sequence

pytestmark = pytest.mark.integration


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if 'index' in metafunc.fixturenames:
        metafunc.parametrize(
            'index', range(model_settings.of(metafunc.config).sequences)
        )


# A frozen (SIGSTOP) or dead agent is down after SERVICE_DOWN_TIME, so a
# step can afford to wait for it. A running agent reports every second;
# the oldest heartbeat seen while everything ran is printed after each
# sequence (a few seconds at most on a loaded 2-core machine), and a
# false "down" would only make an evacuation of a live host possible,
# which the invariants must survive anyway.
SERVICE_DOWN_TIME = 8
REPORT_INTERVAL = 1
COMPUTE_OPTIONS = {
    # Builds and rebuilds take a moment, so that steps land mid-way.
    'virt_resources': {'spawn_seconds': 2},
    # The periodic clean-up (a host that resumes without a restart
    # converges within this time).
    'DEFAULT': {
        'cleanup_interval': 5,
        # Shelved servers stay until offloaded by a step, so
        # that SHELVED is a state of its own.
        'shelved_offload_time': -1,
    },
}
CONTROLLER_OPTIONS = {
    # Moves and builds a killed conductor lost are driven again within seconds
    # (and requests still in flight are sometimes driven twice: that
    # must be safe too).
    'conductor': {
        'move_recovery_interval': 5,
        'move_stall_timeout': 20,
        'build_stall_timeout': 20,
    },
}


class Clouds:
    """One deployment, reused by the sequences of this module until one
    fails: the next then gets a fresh deployment."""

    def __init__(self, request: Any, tmp_path_factory: Any) -> None:
        self.request = request
        self.tmp_path_factory = tmp_path_factory
        self.cloud: ModelCloud | None = None

    def get(self) -> ModelCloud:
        if self.cloud is None:
            import devstack

            dep = devstack.start(
                self.tmp_path_factory.mktemp('model'),
                db='mysql',
                computes=3,
                driver='local',
                service_down_time=SERVICE_DOWN_TIME,
                report_interval=REPORT_INTERVAL,
                compute_options=COMPUTE_OPTIONS,
                controller_options=CONTROLLER_OPTIONS,
            )
            integration.register_cloud(self.request, dep)
            self.cloud = ModelCloud(dep)
            self.cloud.prepare(secrets.token_hex(3))
        return self.cloud

    def discard(self) -> None:
        if self.cloud is not None:
            self.cloud.close()
            self.cloud.dep.stop()
            self.cloud = None


@pytest.fixture(scope='module')
def clouds(request, tmp_path_factory):
    pool = Clouds(request, tmp_path_factory)
    try:
        yield pool
    finally:
        pool.discard()


def _replay(text: str | None) -> list[model_steps.Step] | None:
    if not text:
        return None
    if text.startswith('@'):
        text = Path(text[1:]).read_text()
    return model_steps.loads(text)


def _keep_report(
    tmp_path_factory: Any,
    seed: int,
    exc: BaseException,
) -> None:
    """A failed sequence's report, at once, in
    ``<basetemp>/failures/seed-<seed>.txt`` (a long run prints it only
    when it ends)."""
    folder = tmp_path_factory.getbasetemp() / 'failures'
    folder.mkdir(exist_ok=True)
    (folder / f'seed-{seed}.txt').write_text(f'{type(exc).__name__}: {exc}')


def test_sequence(clouds, tmp_path_factory, index, request):
    settings = model_settings.of(request.config)
    seed = settings.seed + index
    cloud = clouds.get()
    sequence = Sequence(cloud, seed, settings.steps, _replay(settings.replay))
    started = time.monotonic()
    try:
        sequence.run()
    except BaseException as exc:
        _keep_report(tmp_path_factory, seed, exc)
        clouds.discard()
        raise
    finally:
        print(
            f'model sequence {sequence.describe()} in '
            f'{time.monotonic() - started:.0f} s'
        )


def main(argv: list[str] | None = None) -> int:
    """Run the module with more sequences (``--sequences 200``)."""
    env = model_settings.Settings.from_env()
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sequences', type=int, default=env.sequences)
    parser.add_argument('--steps', type=int, default=env.steps)
    parser.add_argument('--seed', type=int, default=env.seed)
    parser.add_argument(
        '--replay', default=env.replay, help='a JSON list of steps, or @FILE'
    )
    args, pytest_args = parser.parse_known_args(argv)
    settings = model_settings.Settings(
        args.sequences, args.steps, args.seed, args.replay
    )
    return pytest.main(
        [__file__, '-p', 'no:cacheprovider', '-rf', '-s', *pytest_args],
        plugins=[model_settings.CommandLine(settings)],
    )


if __name__ == '__main__':
    sys.exit(main())
