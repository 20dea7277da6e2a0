"""Hooks shared by the integration test directories of both services.

Every test in such a directory is marked ``integration``; when one fails,
the tail of every service log of its module's deployment is attached to
the report. The deployments come from tools/ (devstack.py,
devstack_ironic.py), which this module puts on ``sys.path``.
"""

from pathlib import Path
import sys

import pytest

TOOLS = Path(__file__).resolve().parents[2] / 'tools'
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))

CLOUD_KEY = pytest.StashKey[object]()


def mark_integration(directory: Path, items: list[pytest.Item]) -> None:
    for item in items:
        if directory in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.integration)


def attach_logs(item: pytest.Item, report: pytest.TestReport) -> None:
    """Add the service log tails of the module's deployment to a failure."""
    module = item.getparent(pytest.Module)
    if report.failed and module is not None and CLOUD_KEY in module.stash:
        cloud = module.stash[CLOUD_KEY]
        report.sections.append(('service logs (tails)',
                                cloud.log_tails()))  # type: ignore[attr-defined]


def register_cloud(request: pytest.FixtureRequest, cloud: object) -> None:
    """Attach ``cloud`` (it has ``log_tails()``) to the test module."""
    request.node.stash[CLOUD_KEY] = cloud
