"""Keep each gabbi file's ordered tests together on one xdist worker."""

import pytest


def pytest_collection_modifyitems(items):  # type: ignore[no-untyped-def]
    for item in items:
        if item.module.__name__.endswith('functional.test_api'):
            item.add_marker(pytest.mark.xdist_group('ironic-gabbi'))
