"""Runs every gabbi YAML file in gabbits/ against the in-process API
(SQLite)."""

from pathlib import Path

from gabbi.driver import test_pytest  # noqa: F401  (collected by pytest)

from lite_common.tests import gabbi_loader
from neutron_lite.tests.functional import fixtures

pytest_generate_tests = gabbi_loader.generator(
    Path(__file__).parent / 'gabbits', fixtures, __name__
)
