"""Loading a directory of gabbi YAML files as pytest tests.

A test module does::

    from gabbi.driver import test_pytest  # noqa: F401 (collected)
    pytest_generate_tests = gabbi_loader.generator(GABBITS, fixtures,
                                                   __name__)

where ``fixtures`` is the module holding the gabbi fixture classes and
the WSGI ``application`` the requests go to. The tests of one YAML file
depend on each other in order: tools/run-tests.sh runs pytest-xdist
with ``--dist loadfile``, which keeps a test module on one worker.
"""

from pathlib import Path
from types import ModuleType
from typing import Any

from gabbi import driver


def generator(directory: Path, fixtures: ModuleType, loader_name: str) -> Any:
    """A ``pytest_generate_tests`` hook for the YAML files of
    ``directory``, intercepted by ``fixtures.application``."""

    def pytest_generate_tests(metafunc: Any) -> None:
        driver.py_test_generator(
            str(directory),
            intercept=lambda: fixtures.application,
            fixture_module=fixtures,
            test_loader_name=loader_name,
            metafunc=metafunc,
        )

    return pytest_generate_tests
