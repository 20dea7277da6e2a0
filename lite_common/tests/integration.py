"""Hooks shared by the integration test directories of both services.

Every test in a ``tests/integration`` directory is marked
``integration``; when one fails, the tail of every service log of its
module's deployment is attached to the report. The deployments come from
tools/ (devstack.py, devstack_ironic.py), which this module puts on
``sys.path``. A conftest.py uses the hooks by naming them::

    pytest_collection_modifyitems = integration.pytest_collection_modifyitems
    pytest_runtest_makereport = integration.pytest_runtest_makereport
"""

from pathlib import Path
import sys
from typing import Any

import pytest

TOOLS = Path(__file__).resolve().parents[2] / 'tools'
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))

CLOUD_KEY = pytest.StashKey[object]()


def _in_integration_dir(item: pytest.Item) -> bool:
    parts = Path(str(item.path)).resolve().parts
    return any(
        parts[i : i + 2] == ('tests', 'integration')
        for i in range(len(parts) - 1)
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of a ``tests/integration`` directory."""
    for item in items:
        if (
            _in_integration_dir(item)
            and item.get_closest_marker('integration') is None
        ):
            item.add_marker(pytest.mark.integration)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    """Add the service log tails of the module's deployment to a failure."""
    report = yield
    module = item.getparent(pytest.Module)
    if report.failed and module is not None and CLOUD_KEY in module.stash:
        cloud = module.stash[CLOUD_KEY]
        report.sections.append(('service logs (tails)', cloud.log_tails()))  # type: ignore[attr-defined]
    return report


def register_cloud(request: pytest.FixtureRequest, cloud: object) -> None:
    """Attach ``cloud`` (it has ``log_tails()``) to the test module."""
    request.node.stash[CLOUD_KEY] = cloud
