"""Fixtures of the integration tests: real services, real clients.

Every test in this directory is marked ``integration``. Each module starts
one deployment in a module-scoped fixture; tools/run-tests.sh uses
``--dist loadfile`` so that a module stays on one xdist worker. When a test
fails, the tail of every service log is attached to its report.
"""

from pathlib import Path
import sys

import pytest

TOOLS = Path(__file__).resolve().parents[3] / 'tools'
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))

import devstack  # noqa: E402

HERE = Path(__file__).resolve().parent
CLOUD_KEY = pytest.StashKey[object]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.integration)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    module = item.getparent(pytest.Module)
    if report.failed and module is not None and CLOUD_KEY in module.stash:
        cloud = module.stash[CLOUD_KEY]
        report.sections.append(('service logs (tails)', cloud.log_tails()))
    return report


def register_cloud(request: pytest.FixtureRequest, cloud: object) -> None:
    """Attach ``cloud`` to the module so failures show its logs."""
    request.node.stash[CLOUD_KEY] = cloud


@pytest.fixture(scope='module')
def deployment(request, tmp_path_factory):
    """nova_lite as separate processes on MariaDB + RabbitMQ, 2 computes."""
    workdir = tmp_path_factory.mktemp('devstack')
    dep = devstack.start(workdir, db='mysql', computes=2, driver='local')
    register_cloud(request, dep)
    try:
        yield dep
    finally:
        codes = dep.stop()
    bad = {name: code for name, code in codes.items() if code != 0}
    assert not bad, (f'services did not exit cleanly on SIGTERM: {bad}\n'
                     + dep.log_tails())
