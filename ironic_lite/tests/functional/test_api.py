"""Runs every gabbi YAML file in gabbits/ against an in-process stack
(the real conductor, the inproc bus, SQLite).

The tests of one file run in order on one pytest-xdist worker (see the
xdist_group mark added in conftest.py).
"""

from pathlib import Path

from gabbi import driver
from gabbi.driver import test_pytest  # noqa: F401  (collected by pytest)

from ironic_lite.tests.functional import fixtures

TESTS_DIR = Path(__file__).parent / 'gabbits'


def pytest_generate_tests(metafunc):  # type: ignore[no-untyped-def]
    driver.py_test_generator(
        str(TESTS_DIR), intercept=lambda: fixtures.application,
        fixture_module=fixtures, test_loader_name=__name__,
        metafunc=metafunc)
