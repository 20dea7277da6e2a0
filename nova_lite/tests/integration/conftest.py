"""Fixtures of the integration tests: real services, real clients.

Every test in this directory is marked ``integration``. Each module starts
one deployment in a module-scoped fixture; tools/run-tests.sh uses
``--dist loadfile`` so that a module stays on one xdist worker. When a test
fails, the tail of every service log is attached to its report.
"""

import pytest

from lite_common.tests import integration

# The shared hooks, registered by being names of this conftest.
pytest_collection_modifyitems = integration.pytest_collection_modifyitems
pytest_runtest_makereport = integration.pytest_runtest_makereport
register_cloud = integration.register_cloud


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
    assert not bad, (
        f'services did not exit cleanly on SIGTERM: {bad}\n' + dep.log_tails()
    )


@pytest.fixture(scope='module')
def three_computes(request, tmp_path_factory):
    """nova_lite on MariaDB + RabbitMQ with 3 computes (local driver),
    one deployment per test module. The tests stop and kill computes, so
    exit codes are not checked."""
    import devstack

    workdir = tmp_path_factory.mktemp('three-computes')
    dep = devstack.start(workdir, db='mysql', computes=3, driver='local')
    register_cloud(request, dep)
    try:
        yield dep
    finally:
        dep.stop()
