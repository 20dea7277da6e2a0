"""Fixtures of the integration tests: real services, real clients.

Every test in this directory is marked ``integration``. Each module starts
one deployment in a module-scoped fixture; tools/run-tests.sh uses
``--dist loadfile`` so that a module stays on one xdist worker. When a test
fails, the tail of every service log is attached to its report.
"""

from pathlib import Path

import pytest

from lite_common.tests import integration
from lite_common.tests.integration import register_cloud  # noqa: F401

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    integration.mark_integration(HERE, items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    integration.attach_logs(item, report)
    return report


@pytest.fixture(scope='module')
def deployment(request, tmp_path_factory):
    """nova_lite as separate processes on MariaDB + RabbitMQ, 2 computes."""
    import devstack  # tools/ is on sys.path: see lite_common.tests

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
