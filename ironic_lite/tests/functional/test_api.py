"""Runs every gabbi YAML file in gabbits/ against an in-process stack
(the real conductor, the inproc bus, SQLite)."""

from pathlib import Path

from gabbi.driver import test_pytest  # noqa: F401  (collected by pytest)

from ironic_lite.tests.functional import fixtures
from lite_common.tests import gabbi_loader

pytest_generate_tests = gabbi_loader.generator(
    Path(__file__).parent / 'gabbits', fixtures, __name__
)
